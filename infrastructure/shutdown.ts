/** Stops cleanly on SIGINT/SIGTERM (a second signal exits at once). */
export const onShutdown = (stop: () => Promise<void>): void => {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    stop().then(
      () => process.exit(0),
      (error) => {
        console.error(`error while stopping on ${signal}`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
};
