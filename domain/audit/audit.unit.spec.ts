import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGGREGATE_FOLDS, foldOf, plainState } from './aggregates.ts';
import { hasRedactions, REDACTED, redactSecrets } from './redact.ts';

describe('redactSecrets', () => {
  it('replaces key hashes, signing secrets and their ciphertexts at any depth, and nothing else', () => {
    const event = {
      data: { key_id: 'k1', key_hash: 'abc', content_hash: 'keep', nested: [{ signing_secret_encrypted: 'v1.xyz' }] },
      state: { signingSecretEncrypted: 'v1.zzz', legacyUnsigned: false, signing_secret: 'whsec_x' },
      metadata: { actor: 'key:k1' },
    };
    const redacted = redactSecrets(event);
    expect(redacted).toEqual({
      data: { key_id: 'k1', key_hash: REDACTED, content_hash: 'keep', nested: [{ signing_secret_encrypted: REDACTED }] },
      state: { signingSecretEncrypted: REDACTED, legacyUnsigned: false, signing_secret: REDACTED },
      metadata: { actor: 'key:k1' },
    });
    expect(event.data.key_hash).toBe('abc');
    expect(hasRedactions(redacted)).toBe(true);
    expect(hasRedactions(event)).toBe(false);
  });

  it('keeps a null secret null (a legacy endpoint has none)', () => {
    expect(redactSecrets({ signing_secret_encrypted: null })).toEqual({ signing_secret_encrypted: null });
  });
});

describe('aggregate folds', () => {
  it('turn Sets, Maps and bigints into plain JSON', () => {
    expect(plainState({ s: new Set(['b', 'a']), m: new Map([['k', { revoked: false }]]), n: 5n })).toEqual({ s: ['a', 'b'], m: { k: { revoked: false } }, n: '5' });
  });

  it('cover the category of every stream the domain names', () => {
    // Every `<category>-${...}` stream-name helper in domain/ must have a fold, or its state cannot be audited.
    const categories = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.includes('.spec.')) {
          for (const match of readFileSync(path, 'utf8').matchAll(/Stream = \([^)]*\): string => `([a-z]+)-\$\{/g)) categories.add(match[1]);
        }
      }
    };
    walk(join(import.meta.dirname, '..'));
    expect(categories.size).toBeGreaterThan(5);
    for (const category of categories) expect(foldOf(category), category).toBeDefined();
    expect(foldOf('referencedata')).toBeDefined();
    expect(foldOf('constructor')).toBeUndefined();
    for (const fold of Object.values(AGGREGATE_FOLDS)) expect(fold.initialState()).toBeDefined();
  });
});
