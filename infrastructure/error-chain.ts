/**
 * An error and the errors it wraps, outermost first: each one's `cause`, or the first of `via`'s
 * fields that holds an object (kafkajs wraps in `originalError`, the Mongo driver a bulk write's
 * failure in `errorResponse`), at most `depth` errors deep. What wraps what differs by library; the
 * code asking "is this, underneath, a refused connection / a full disk / a stale producer?" walks
 * the chain with this instead of a loop of its own.
 */
export function* errorChain(error: unknown, options: { via?: readonly string[]; depth?: number } = {}): Generator<Record<string, unknown>> {
  const via = options.via ?? ['cause'];
  let current = error;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < (options.depth ?? 5); depth++) {
    const links = current as Record<string, unknown>;
    yield links;
    current = via.map((field) => links[field]).find((next) => next !== null && typeof next === 'object');
  }
}
