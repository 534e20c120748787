import type { FastifyInstance } from 'fastify';
import type { RouteAuth } from './auth.ts';

/** One method + URL of the live route table, with what the auth hook and the harness need to know. */
export type RouteEntry = {
  method: string;
  /** Fastify form, with the prefix: `/v1/votes/:id`. */
  url: string;
  /** OpenAPI form: `/v1/votes/{id}`. */
  path: string;
  auth: RouteAuth;
  feature: string | undefined;
  /** Left out of the OpenAPI document. */
  hidden: boolean;
  params: string[];
  /** Its JSON body may be left out (config.optionalBody). */
  optionalBody: boolean;
  schema: { body?: unknown; params?: unknown; querystring?: unknown } | undefined;
};

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on this app (filled by an onRoute hook; read by the harness tests). */
    routeTable: readonly RouteEntry[];
  }
}

const toOpenApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Records every route as it is added (an onRoute hook on the root app sees the routes of every
 * plugin registered after it), so tests can be generated from the real route table: a route added
 * tomorrow is covered by the authorization matrix and checked against the OpenAPI document.
 */
export const recordRouteTable = (app: FastifyInstance): void => {
  const routes: RouteEntry[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { auth?: RouteAuth; feature?: string; optionalBody?: boolean };
    const schema = route.schema as (RouteEntry['schema'] & { hide?: boolean }) | undefined;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({
        method: method.toUpperCase(),
        url: route.url,
        path: toOpenApiPath(route.url),
        auth: config.auth ?? 'account',
        feature: config.feature,
        hidden: schema?.hide === true,
        params: [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]),
        optionalBody: config.optionalBody === true,
        schema,
      });
    }
  });
};
