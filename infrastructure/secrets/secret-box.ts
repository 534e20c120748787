import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets the service must be able to read back (webhook signing secrets) before they
 * go into events: AES-256-GCM with a random 96-bit IV; the associated data binds a ciphertext to
 * its owner (the webhook id), so one endpoint's ciphertext cannot be replayed onto another.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  encrypt(plaintext: string, associatedData: string): string;
  /** Throws if the key is wrong or the ciphertext was tampered with. */
  decrypt(ciphertext: string, associatedData: string): string;
}

export const aesGcmSecretBox = (key: Buffer): SecretBox => {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const encrypted = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), encrypted].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    decrypt(ciphertext, associatedData) {
      const [version, iv, tag, encrypted] = ciphertext.split('.');
      if (version !== 'v1' || !iv || !tag || encrypted === undefined) throw new Error('unknown secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(encrypted, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
};
