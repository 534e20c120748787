import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aesGcmSecretBox, type SecretBox } from '../infrastructure/secrets/secret-box.ts';
import { cachedDecryption } from './secret-cache.ts';

const counting = (box: SecretBox) => {
  let decrypts = 0;
  return {
    box: { encrypt: box.encrypt, decrypt: (c: string, a: string) => (decrypts++, box.decrypt(c, a)) } satisfies SecretBox,
    decrypts: () => decrypts,
  };
};

describe('cachedDecryption', () => {
  it('decrypts a ciphertext once, a rotated one afresh, and still refuses a ciphertext under another owner', () => {
    const inner = counting(aesGcmSecretBox(randomBytes(32)));
    const box = cachedDecryption(inner.box);
    const first = box.encrypt('whsec_one', 'wh_1');
    expect([box.decrypt(first, 'wh_1'), box.decrypt(first, 'wh_1'), box.decrypt(first, 'wh_1')]).toEqual(['whsec_one', 'whsec_one', 'whsec_one']);
    expect(inner.decrypts()).toBe(1);
    const rotated = box.encrypt('whsec_two', 'wh_1');
    expect(box.decrypt(rotated, 'wh_1')).toBe('whsec_two');
    expect(inner.decrypts()).toBe(2);
    // The associated data is part of the key: another endpoint cannot read wh_1's cached secret.
    expect(() => box.decrypt(first, 'wh_2')).toThrow();
  });

  it('keeps a bounded number of secrets', () => {
    const inner = counting(aesGcmSecretBox(randomBytes(32)));
    const box = cachedDecryption(inner.box, 2);
    const ciphertexts = ['a', 'b', 'c'].map((name) => box.encrypt(`whsec_${name}`, name));
    ciphertexts.forEach((ciphertext, index) => box.decrypt(ciphertext, ['a', 'b', 'c'][index]));
    expect(box.decrypt(ciphertexts[0], 'a')).toBe('whsec_a'); // evicted: decrypted again
    expect(inner.decrypts()).toBe(4);
  });
});
