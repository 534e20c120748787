import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../infrastructure/project-root.ts';
import type { FastifyPluginAsync } from 'fastify';

const asset = (name: string) => readFileSync(join(PROJECT_ROOT, 'query-api/console', name), 'utf8');

/**
 * The operations console: one static page, its script and its style, served from this process (no
 * CDN, works offline). The page itself holds no data and needs no key; it asks for the admin key,
 * keeps it in sessionStorage and reads everything from the admin API. A strict Content Security
 * Policy allows only this origin's script, style and API.
 */
export const adminConsoleRoutes = (): FastifyPluginAsync => async (app) => {
  const files = {
    html: asset('console.html'),
    js: asset('console.js'),
    css: asset('console.css'),
  };
  const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
  const send = (type: string, body: string) => async (_request: unknown, reply: { header: (name: string, value: string) => typeof reply; send: (body: string) => unknown }) =>
    reply.header('content-type', type).header('content-security-policy', csp).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache').send(body);
  const options = { schema: { hide: true }, config: { auth: 'public' as const } };
  app.get('/admin/console', options, send('text/html; charset=utf-8', files.html));
  app.get('/admin/console/console.js', options, send('text/javascript; charset=utf-8', files.js));
  app.get('/admin/console/console.css', options, send('text/css; charset=utf-8', files.css));
};
