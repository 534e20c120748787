/**
 * Whether an endpoint is answering: per endpoint, the requests on their way and the time of its
 * last answer (or of the first request since it last had none on the way). An endpoint with
 * requests out and no answer for a while is stuck — a black hole, or one timing out — and the
 * dispatcher parks its new deliveries in the store instead of holding a bus batch for them. A busy
 * but healthy endpoint keeps answering, so it never looks stuck however many requests wait.
 */
export type EndpointHealth = {
  track: <T>(webhookId: string, request: () => Promise<T>) => Promise<T>;
  /** How long the endpoint has had requests out without any answer (0: none out, or answering). */
  stuckForMs: (webhookId: string) => number;
  /** Requests on their way to the endpoint now. */
  outstanding: (webhookId: string) => number;
};

export const createEndpointHealth = (now: () => number = Date.now): EndpointHealth => {
  const endpoints = new Map<string, { out: number; since: number }>();
  return {
    async track(webhookId, request) {
      let entry = endpoints.get(webhookId);
      if (!entry) {
        entry = { out: 0, since: now() };
        endpoints.set(webhookId, entry);
      }
      if (entry.out === 0) entry.since = now();
      entry.out += 1;
      try {
        return await request();
      } finally {
        entry.out -= 1;
        entry.since = now();
        if (entry.out === 0) endpoints.delete(webhookId);
      }
    },
    outstanding: (webhookId) => endpoints.get(webhookId)?.out ?? 0,
    stuckForMs(webhookId) {
      const entry = endpoints.get(webhookId);
      return entry && entry.out > 0 ? now() - entry.since : 0;
    },
  };
};
