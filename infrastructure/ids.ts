import { createHash, hash, randomBytes, randomFillSync, randomInt, timingSafeEqual } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * Numeric ids (votes, favourites, legislation) made without coordination between replicas:
 * 53-bit time-ordered integers = milliseconds since 2024-01-01 (41 bits, good for ~69 years)
 * × 4096 + a 12-bit sequence that starts at a random value in each process. Two replicas can
 * still draw the same id in the same millisecond; every id is the name of a new stream appended
 * with "no stream", so such a clash is a conflict the caller retries with a fresh id — never a
 * silent overwrite.
 */
const EPOCH_MS = Date.UTC(2024, 0, 1);
let sequence = randomInt(4096);
let lastMs = 0;

export const nextNumericId = (): number => {
  let ms = Date.now() - EPOCH_MS;
  if (ms < lastMs) ms = lastMs;
  if (ms === lastMs) {
    sequence = (sequence + 1) % 4096;
  } else {
    sequence = randomInt(4096);
    lastMs = ms;
  }
  return ms * 4096 + sequence;
};

/**
 * The random part of event ids, drawn from the system's CSPRNG 256 ids at a time: asking it for
 * 16 bytes per id (what uuid does by default) cost more than the rest of the id and showed up in
 * every profile of the write path.
 */
const RANDOM_POOL = new Uint8Array(16 * 256);
let poolOffset = RANDOM_POOL.length;
const random16 = (): Uint8Array => {
  if (poolOffset === RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  const bytes = RANDOM_POOL.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
};

/**
 * Event ids: UUIDv7 (RFC 9562), time-ordered to the millisecond (random within it), so the
 * event store's unique index on event ids grows at its end instead of at random pages (a random
 * v4 id made every append touch a different index page; measured ~1.6× slower appends on the
 * SQLite store).
 */
export const newEventId = (): string => uuidv7({ random: random16() });

/** Opaque random ids for resources whose id is a string (accounts, images, pets). */
export const randomId = (bytes = 12): string => randomBytes(bytes).toString('base64url');

/** (One-shot `crypto.hash`: no Hash object per call — every authenticated request hashes its key.) */
export const sha256 = (value: string): string => hash('sha256', value, 'hex');

/**
 * API keys: 32 random bytes, shown once. Only the SHA-256 of the key is stored (keys are
 * high-entropy, so a slow hash adds nothing); the key id is its first characters, for logs.
 */
export const newApiKey = (): { key: string; key_id: string; key_hash: string; key_prefix: string } => {
  const key = `live_${randomBytes(32).toString('base64url')}`;
  const key_hash = sha256(key);
  return { key, key_id: key_hash.slice(0, 16), key_hash, key_prefix: key.slice(0, 9) };
};

/** Compares two secrets in constant time (over their hashes, so lengths never leak). */
export const secretsEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
