import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from './port.ts';

export const blobStoreContract = (adapterName: string, makeStore: () => Promise<BlobStore>): void => {
  describe(`blob store contract: ${adapterName}`, () => {
    let store: BlobStore;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('puts, gets, streams, replaces and deletes bytes', async () => {
      const key = `k-${randomUUID()}`;
      const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
      expect((await store.put(key, bytes, 'image/png')).size).toBe(bytes.length);
      const got = await store.get(key);
      expect(got?.contentType).toBe('image/png');
      expect(got?.data.equals(bytes)).toBe(true);
      const streamed = await store.stream(key);
      const chunks: Buffer[] = [];
      for await (const chunk of streamed!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(streamed?.size).toBe(bytes.length);
      await store.put(key, Readable.from([Buffer.from('new')]), 'text/plain');
      expect((await store.get(key))?.data.toString()).toBe('new');
      expect(await store.delete(key)).toBe(true);
      expect(await store.get(key)).toBeNull();
      expect(await store.stream(key)).toBeNull();
      expect(await store.delete(key)).toBe(false);
    });

    it('refuses keys that could escape the store', async () => {
      await expect(store.put('../etc/passwd', Buffer.from('x'), 'text/plain')).rejects.toThrow();
    });
  });
};
