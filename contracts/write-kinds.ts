/**
 * What an account's write changes, as far as its own later reads care (read-your-writes). The
 * command side records every write under its kind (command-api/deps.ts, recordWrite). A query
 * route that names the kinds of write its answer can depend on (route config `dependsOn`, see
 * http/consistency.ts) waits only for the caller's last write of those kinds; a route that names
 * none waits for the caller's last write of any kind.
 *
 * - votes: vote streams · favourites: favourite and claim streams · images: image streams (uploads,
 *   breed tags, public requests, deletions) · pets: pets, their media and analyses (portrait,
 *   respiratory rate, body condition) · webhooks: endpoints and registry · quota: upload quota.
 */
export const WRITE_KINDS = ['votes', 'favourites', 'images', 'pets', 'webhooks', 'quota'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];
