/**
 * Deadlines for many requests on one timer. `AbortSignal.timeout` per request (a timer, an
 * EventTarget and a DOMException each) was ≈ 3–4 % of the dispatcher's CPU in a backlog drain.
 * Every deadline here has the same length, so they fall due in the order they were made: one
 * interval (`resolutionMs`, running only while a deadline is live) aborts the due ones from the
 * front. A deadline is an abort signal as undici takes one (`aborted`, `reason`, abort listeners);
 * it fires up to `resolutionMs` late and never early.
 */
export type Deadline = {
  readonly aborted: boolean;
  readonly reason: Error | undefined;
  addEventListener: (type: 'abort', listener: () => void) => void;
  removeEventListener: (type: 'abort', listener: () => void) => void;
  /** The request is over: its deadline no longer matters. */
  clear: () => void;
};

export type Deadlines = { start: () => Deadline; close: () => void };

export const createDeadlines = (timeoutMs: number, resolutionMs = 50, now: () => number = () => performance.now()): Deadlines => {
  type Live = Deadline & { at: number; fire: () => void };
  const live = new Set<Live>();
  let timer: NodeJS.Timeout | null = null;

  const tick = () => {
    const current = now();
    for (const deadline of live) {
      if (deadline.at > current) break;
      live.delete(deadline);
      deadline.fire();
    }
    if (live.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };

  return {
    start() {
      const listeners: (() => void)[] = [];
      let aborted = false;
      let reason: Error | undefined;
      const deadline: Live = {
        at: now() + timeoutMs,
        get aborted() {
          return aborted;
        },
        get reason() {
          return reason;
        },
        addEventListener: (_type, listener) => void listeners.push(listener),
        removeEventListener: (_type, listener) => {
          const index = listeners.indexOf(listener);
          if (index >= 0) listeners.splice(index, 1);
        },
        clear: () => void live.delete(deadline),
        fire: () => {
          aborted = true;
          reason = Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' });
          for (const listener of listeners.splice(0)) listener();
        },
      };
      live.add(deadline);
      if (!timer) {
        timer = setInterval(tick, resolutionMs);
        timer.unref();
      }
      return deadline;
    },
    close() {
      if (timer) clearInterval(timer);
      timer = null;
      live.clear();
    },
  };
};
