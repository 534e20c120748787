/** How often, and for how long, a record that could not be written is tried again. */
export const RETRY_EVERY_MS = 1_000;
export const RETRY_FOR_MS = 300_000;

/**
 * Tries `task` again in the background, every `everyMs` for up to `forMs`, until it succeeds
 * (the timers never keep the process alive). For bookkeeping that follows a durable write — the
 * write stands whether or not this succeeds — when the store it goes to is out of reach for a while.
 */
export const retryLater = (
  task: () => Promise<void>,
  options: { everyMs?: number; forMs?: number; onGiveUp?: (error: unknown) => void } = {},
): void => {
  const everyMs = options.everyMs ?? RETRY_EVERY_MS;
  const deadline = Date.now() + (options.forMs ?? RETRY_FOR_MS);
  const attempt = () => {
    task().catch((error) => {
      if (Date.now() + everyMs > deadline) options.onGiveUp?.(error);
      else setTimeout(attempt, everyMs).unref();
    });
  };
  setTimeout(attempt, everyMs).unref();
};
