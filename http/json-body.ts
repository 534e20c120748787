import type { FastifyInstance } from 'fastify';

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
};

/**
 * preValidation of an operation whose JSON body is optional: no body is an empty object, so the
 * body schema (additionalProperties: false) still refuses unknown fields when there is one.
 */
export const bodyMayBeAbsent = async (request: { body: unknown }): Promise<void> => {
  request.body ??= {};
};
