import Router from 'find-my-way';
import type { RouteEntry } from './route-table.ts';

/**
 * Which methods a path has, for answering a wrong method on a known path with 405 and `Allow`
 * instead of 404. A find-my-way router (Fastify's own router library, same matching rules,
 * trailing slash ignored as the app does) mirrors the route table; it is built on the first
 * miss, once every route is registered. OPTIONS is in every non-empty answer: CORS answers it on
 * any path. Wildcard routes (CORS preflight, the docs UI's static files) say nothing about a path.
 */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const rank = (method: string) => (ORDER.includes(method) ? ORDER.indexOf(method) : ORDER.length);

export const allowedMethodsFinder = (routes: readonly RouteEntry[]) => {
  let router: Router.Instance<Router.HTTPVersion.V1> | null = null;
  let methods: string[] = [];
  const build = () => {
    const built = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: false });
    const seen = new Set<string>();
    for (const route of routes) {
      if (route.method === 'OPTIONS' || route.url.includes('*')) continue;
      const key = `${route.method} ${route.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      try {
        built.on(route.method as Router.HTTPMethod, route.url, () => undefined);
      } catch {
        // a method find-my-way does not know, or a pattern it refuses: no 405 for it
      }
    }
    methods = [...new Set([...seen].map((key) => key.split(' ')[0]))];
    return built;
  };
  return (url: string): string[] => {
    router ??= build();
    const path = url.split('?')[0];
    const allowed = methods.filter((method) => router?.find(method as Router.HTTPMethod, path) != null);
    if (allowed.length === 0) return [];
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    return [...allowed.sort((a, b) => rank(a) - rank(b)), 'OPTIONS'];
  };
};
