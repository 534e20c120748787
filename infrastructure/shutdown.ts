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

/**
 * onShutdown for a process from the moment it starts: its /health and /ready (METRICS_PORT) may
 * answer before the rest of it is up, and a SIGTERM then — an orchestrator giving up on a slow
 * start, a deploy rolling on — must not meet Node's default handler and end the process abruptly.
 * `starting` resolves with the process's stop function; a signal during start-up stops the process
 * once it has started (status 0; SHUTDOWN_TIMEOUT_MS still bounds the whole). Resolves once
 * started; a failed start rejects (and a signal then exits with status 1).
 */
export const onShutdownOnceStarted = async (starting: Promise<() => Promise<void>>, timeoutMs?: number): Promise<void> => {
  onShutdown(async () => (await starting)(), timeoutMs);
  await starting;
};
