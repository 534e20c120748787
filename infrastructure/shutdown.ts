/**
 * Stops cleanly on SIGINT/SIGTERM: `stop` closes the listener (in-flight requests finish, idle
 * keep-alive connections close, new requests get 503), lets consumers finish their handler and
 * commit, stores checkpoints and closes the adapters. If that takes longer than `timeoutMs`
 * (SHUTDOWN_TIMEOUT_MS, default 10 s) the process exits with status 1 anyway; a second signal
 * exits at once.
 */
export const onShutdown = (stop: () => Promise<void>, timeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS) || 10_000): void => {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    const timer = setTimeout(() => {
      console.error(`shutdown on ${signal} took longer than ${timeoutMs} ms; exiting`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
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
