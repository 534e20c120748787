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
 * - public-images: the writes of `images` on an image everybody sees (public once the write is
 *   done: its breed tags, its deletion, the decision that made it public), which can change what
 *   every account reads about breeds (a breed's reference image). Recorded beside `images`.
 */
export const WRITE_KINDS = ['votes', 'favourites', 'images', 'public-images', 'pets', 'webhooks', 'quota'] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/**
 * Kinds whose writes are rare and answered only after the write-positions lease
 * (infrastructure/consistency/write-positions.ts): a read that depends on these kinds alone (and on
 * the account's own changes: keys, deactivation, features) may use positions looked up within the
 * lease instead of a lookup of its own. Breeds and legislation (public images) and authentication
 * then cost no round trip per request on a shared store.
 */
export const LEASED_KINDS: readonly WriteKind[] = ['public-images'];

/** True when every kind is leased (an empty list too); `undefined` means any write: not leased. */
export const onlyLeasedKinds = (kinds: readonly WriteKind[] | undefined): boolean => kinds !== undefined && kinds.every((kind) => LEASED_KINDS.includes(kind));
