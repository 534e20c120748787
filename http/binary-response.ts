/**
 * A response whose body is bytes of one of `mediaTypes` (wildcards such as `video/*` allowed):
 * documented in OpenAPI as one `content` entry per media type, so clients and fuzzers see what
 * the route really sends instead of the default `application/json`. Routes send a stream or a
 * buffer: nothing is serialised against it.
 */
export const binaryResponse = (description: string, mediaTypes: readonly string[], headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
});
