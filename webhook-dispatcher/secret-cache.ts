import { LRUCache } from 'lru-cache';
import type { SecretBox } from '../infrastructure/secrets/secret-box.ts';

/**
 * The dispatcher signs every attempt with the endpoint's current secret, which the endpoint's
 * stream holds encrypted: decrypting it (AES-256-GCM) on every attempt showed up in profiles of a
 * backlog drain. Decrypted secrets are kept per (endpoint, ciphertext), a bounded number of them:
 * a rotation brings a new ciphertext, so the next attempt decrypts the new secret and the old
 * entry is never asked for again. The process holds the key that decrypts them anyway.
 */
export const cachedDecryption = (box: SecretBox, maxEntries = 1000): SecretBox => {
  const cache = new LRUCache<string, string>({ max: maxEntries });
  return {
    encrypt: (plaintext, associatedData) => box.encrypt(plaintext, associatedData),
    decrypt(ciphertext, associatedData) {
      const key = `${associatedData}\u0000${ciphertext}`;
      let secret = cache.get(key);
      if (secret === undefined) {
        secret = box.decrypt(ciphertext, associatedData);
        cache.set(key, secret);
      }
      return secret;
    },
  };
};
