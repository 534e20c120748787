import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The operation's JSON body is optional: no body is an empty object, so its body schema
     * (additionalProperties: false) still refuses unknown fields when there is one, and the
     * OpenAPI document says `requestBody.required: false`.
     */
    optionalBody?: boolean;
  }
}

/**
 * JSON bodies, parsed by Fastify's own parser (prototype poisoning refused) with one difference:
 * an empty body under `Content-Type: application/json` is no body, on every method. TheCatAPI's
 * clients (its Postman collection among them) send that header on every DELETE and GET; a
 * non-empty body that is not JSON is still 400 invalid_json.
 */
export const registerJsonBody = (app: FastifyInstance): void => {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parse(request, body as string, done);
  });
  // (A callback hook: an async one costs a promise per request, on every route.)
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.routeOptions.config?.optionalBody === true) request.body ??= {};
    done();
  });
};

/** The OpenAPI document with `requestBody.required: false` on the operations whose body is optional. */
export const markOptionalBodies = <T>(document: T, routes: readonly { method: string; path: string; optionalBody: boolean }[]): T => {
  const paths = (document as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }).paths ?? {};
  for (const route of routes) {
    const requestBody = route.optionalBody ? paths[route.path]?.[route.method.toLowerCase()]?.requestBody : undefined;
    if (requestBody) requestBody.required = false;
  }
  return document;
};

