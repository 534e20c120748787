/**
 * The resident similar-images index answers what brute force over the read model answers: a
 * seeded random set of images of three accounts (public and private, two species, two embedding
 * models), asked about before and after labels, approvals and deletions land in the read model.
 * On the embedded read store, and on MongoDB too when MONGO_URL is set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Collections, type ImageDoc, type ImageVectorDoc } from '../contracts/read-models.ts';
import { embeddingInt8, encodeEmbedding } from '../domain/images/embedding.ts';
import { rankSimilar } from '../domain/images/similar.ts';
import { randomUUID } from 'node:crypto';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { mongoReadStore } from '../infrastructure/read-store/mongo.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { similarIndex } from './similar-index.ts';

const DIMS = 64;
const ACCOUNTS = ['alice', 'bob', 'carol'];

/** mulberry32: a small seeded generator, so a failure can be replayed */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const url = process.env.MONGO_URL;
const stores: [string, () => ReadStore | Promise<ReadStore>][] = [
  ['embedded', () => embeddedReadStore()],
  ...(url ? [['MongoDB', () => mongoReadStore(url, { dbName: `similar_${randomUUID().slice(0, 8)}` })] as [string, () => Promise<ReadStore>]] : []),
];

describe.each(stores)('similar-images index (%s read store)', (_name, openStore) => {
  let store: ReadStore;
  let position = 0n;
  afterEach(async () => {
    await store?.drop([Collections.images, Collections.imageVectors], ['breed-centroids']);
    await store?.close();
  });

  const random = seeded(30);
  const vectorNear = (base: number[] | null): number[] => {
    const v = Array.from({ length: DIMS }, (_, i) => (base ? base[i] : 0) + random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  /** Writes one image's two documents as the images and breed-centroids projections would. */
  const put = async (image: { id: string; account: string; public: boolean; species: string | null; model: string; vector: number[] | null }) => {
    position += 1n;
    await store.collection(Collections.images).upsert({ _id: image.id, id: image.id, account_id: image.account, public: image.public } as unknown as ImageDoc, position);
    const embedding = image.vector ? encodeEmbedding(image.vector, image.model, 'image') : null;
    const doc: ImageVectorDoc = {
      _id: image.id,
      account_id: image.account,
      species_id: image.species,
      breed_ids: [],
      public: image.public,
      parent_image_id: null,
      embedding,
      labelled_position: embedding ? Number(position) : null,
      contribution: null,
      changed_position: Number(position),
    };
    await store.collection(Collections.imageVectors).upsert(doc, position);
    await store.setCheckpoint('breed-centroids', position);
  };
  const remove = async (id: string) => {
    position += 1n;
    await store.collection(Collections.images).delete(id, position);
    await store.collection(Collections.imageVectors).delete(id, position);
    await store.setCheckpoint('breed-centroids', position);
  };
  /** Today's semantics, by brute force over the whole read model. */
  const bruteForce = async (account: string, imageId: string, limit: number, species?: string) => {
    const vectors = await store.collection<ImageVectorDoc>(Collections.imageVectors).find({});
    const images = new Map((await store.collection<ImageDoc>(Collections.images).find({})).map((image) => [image.id, image]));
    const own = vectors.find((v) => v._id === imageId)!;
    const candidates = vectors.filter(
      (v) =>
        v._id !== imageId &&
        v.embedding?.model === own.embedding!.model &&
        (species === undefined || v.species_id === species) &&
        (images.get(v._id)?.public || images.get(v._id)?.account_id === account),
    );
    return rankSimilar(embeddingInt8(own.embedding!), candidates.map((c) => ({ id: c._id, vector: embeddingInt8(c.embedding!) })), limit);
  };

  it('answers as brute force does, before and after labels, approvals and deletions', async () => {
    store = await openStore();
    const clusters = Array.from({ length: 6 }, () => vectorNear(null).map((x) => x * 3));
    const images: { id: string; account: string; public: boolean; species: string | null; model: string; vector: number[] | null }[] = [];
    for (let i = 0; i < 400; i++) {
      const image = {
        id: `img-${String(i).padStart(4, '0')}`,
        account: ACCOUNTS[Math.floor(random() * ACCOUNTS.length)],
        public: random() < 0.3,
        species: random() < 0.1 ? null : random() < 0.5 ? '1' : '2',
        model: random() < 0.9 ? 'model-a' : 'model-b',
        vector: random() < 0.05 ? null : vectorNear(clusters[Math.floor(random() * clusters.length)]),
      };
      images.push(image);
      await put(image);
    }
    const index = similarIndex(store);
    await index.sync();
    expect(index.size).toBe(images.filter((i) => i.vector).length);

    const check = async (label: string) => {
      const asked = images.filter((i) => i.vector).slice(0, 40);
      for (const [n, image] of asked.entries()) {
        for (const account of [image.account, ACCOUNTS[(ACCOUNTS.indexOf(image.account) + 1) % ACCOUNTS.length]]) {
          const species = n % 3 === 0 ? '1' : undefined;
          const limit = [1, 5, 10, 100][n % 4];
          const query = embeddingInt8(encodeEmbedding(image.vector!, image.model, 'image'));
          const { shown } = await index.visibleNearest(query, { accountId: account, model: image.model, species, exclude: image.id }, limit);
          expect(shown, `${label}: ${image.id} asked by ${account}, limit ${limit}, species ${species}`).toEqual(await bruteForce(account, image.id, limit, species));
          for (const found of shown) {
            const other = images.find((i) => i.id === found.id)!;
            expect(other.public || other.account === account).toBe(true);
          }
        }
      }
    };
    await check('as built');

    // approvals (another account's private images made public), new labels, and deletions land after the build
    for (const image of images.filter((i) => !i.public && i.vector).slice(0, 30)) {
      image.public = true;
      await put(image);
    }
    for (let i = 0; i < 30; i++) {
      const image = { id: `new-${i}`, account: ACCOUNTS[i % 3], public: i % 2 === 0, species: '1', model: 'model-a', vector: vectorNear(clusters[i % clusters.length]) };
      images.push(image);
      await put(image);
    }
    const deleted = images.filter((i) => i.vector).slice(40, 120);
    for (const image of deleted) await remove(image.id);
    images.splice(0, images.length, ...images.filter((i) => !deleted.includes(i)));
    await check('after approvals, labels and deletions');
  }, 60_000);

  it('shows a deleted image to nobody even before the vectors document goes, and a caller never sees another account’s private images', async () => {
    store = await openStore();
    const base = vectorNear(null);
    await put({ id: 'a-1', account: 'alice', public: false, species: '1', model: 'm', vector: base });
    await put({ id: 'a-2', account: 'alice', public: false, species: '1', model: 'm', vector: vectorNear(base.map((x) => x * 20)) });
    await put({ id: 'b-1', account: 'bob', public: false, species: '1', model: 'm', vector: vectorNear(base.map((x) => x * 20)) });
    await put({ id: 'b-2', account: 'bob', public: true, species: '1', model: 'm', vector: vectorNear(base.map((x) => x * 20)) });
    // a malformed vector (its length is not its dims) is no candidate and fails no query
    position += 1n;
    const broken = { ...encodeEmbedding(base, 'm', 'image'), dims: 10 };
    await store.collection(Collections.imageVectors).upsert(
      { _id: 'a-broken', account_id: 'alice', species_id: '1', breed_ids: [], public: true, parent_image_id: null, embedding: broken, labelled_position: 1, contribution: null, changed_position: Number(position) } satisfies ImageVectorDoc,
      position,
    );
    const index = similarIndex(store);
    const query = embeddingInt8(encodeEmbedding(base, 'm', 'image'));
    const ids = async (account: string) => (await index.visibleNearest(query, { accountId: account, model: 'm', exclude: 'a-1' }, 10)).shown.map((s) => s.id).sort();
    expect(await ids('alice')).toEqual(['a-2', 'b-2']);
    expect(await ids('carol')).toEqual(['b-2']);
    // the images read model has the deletion, image_vectors not yet
    position += 1n;
    await store.collection(Collections.images).delete('b-2', position);
    expect(await ids('alice')).toEqual(['a-2']);
    expect(index.size).toBe(4);
    await store.collection(Collections.imageVectors).delete('b-2', position);
    expect(await ids('alice')).toEqual(['a-2']);
    expect(index.size).toBe(3);
  });
});
