import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aesGcmSecretBox } from './secret-box.ts';
import { loadSecretsKey } from './secrets-key.ts';

describe('secret box (AES-256-GCM)', () => {
  const box = aesGcmSecretBox(randomBytes(32));
  it('round-trips and never contains the plaintext', () => {
    const sealed = box.encrypt('whsec_abc', 'webhook-1');
    expect(sealed).not.toContain('whsec_abc');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.decrypt(sealed, 'webhook-1')).toBe('whsec_abc');
    expect(box.encrypt('whsec_abc', 'webhook-1')).not.toBe(sealed); // random IV
  });
  it('refuses another owner, another key, or a tampered ciphertext', () => {
    const sealed = box.encrypt('whsec_abc', 'webhook-1');
    expect(() => box.decrypt(sealed, 'webhook-2')).toThrow();
    expect(() => aesGcmSecretBox(randomBytes(32)).decrypt(sealed, 'webhook-1')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('whsec_xyz').toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'webhook-1')).toThrow();
  });
});

describe('secrets key', () => {
  it('uses SECRETS_KEY when given', async () => {
    const key = randomBytes(32);
    expect((await loadSecretsKey({ secretsKey: key.toString('base64'), dataDir: '/nonexistent' })).equals(key)).toBe(true);
  });
  it('without it, generates DATA_DIR/secrets.key once (mode 0600) and keeps using it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-'));
    try {
      const [a, b] = await Promise.all([loadSecretsKey({ secretsKey: undefined, dataDir }), loadSecretsKey({ secretsKey: undefined, dataDir })]);
      expect(a.length).toBe(32);
      expect(a.equals(b)).toBe(true);
      expect((await loadSecretsKey({ secretsKey: undefined, dataDir })).equals(a)).toBe(true);
      expect(statSync(join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
