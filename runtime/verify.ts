import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../infrastructure/config.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { Doc, ReadStore } from '../infrastructure/read-store/port.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { randomId } from '../infrastructure/ids.ts';
import type { Projection } from '../projectors/projection.ts';
import { projectToHead } from '../projectors/runner.ts';

export type VerifyReport = {
  projection: string;
  /** The live checkpoint the rebuilt read model was compared at. */
  position: bigint;
  collections: { name: string; live: number; rebuilt: number; differing: string[] }[];
  identical: boolean;
};

/** A scratch read store of the same kind as the live one, and how to get rid of it. */
export type Scratch = { store: ReadStore; dispose: () => Promise<void> };

/**
 * Embedded live store → a scratch SQLite file in a temporary folder; MongoDB → a scratch database
 * on the same server (`<db>_verify_<random>`), dropped afterwards. The live read models are only read.
 */
export const openScratchStore = async (config: Pick<Config, 'mongoUrl'>): Promise<Scratch> => {
  const url = config.mongoUrl;
  if (url) {
    const live = new URL(url).pathname.slice(1) || 'animal_data';
    const dbName = `${live}_verify_${randomId(6).replace(/[^A-Za-z0-9]/g, 'x')}`;
    // Loaded here, not at the top: a process on the embedded adapters never loads the MongoDB driver.
    const [{ mongoReadStore }, { mongoClient }] = await Promise.all([import('../infrastructure/read-store/mongo.ts'), import('../infrastructure/mongo-client.ts')]);
    const store = await mongoReadStore(url, { dbName });
    return {
      store,
      // The scratch database whole (collections and checkpoints), so none piles up.
      dispose: async () => {
        await store.close();
        const client = mongoClient(url);
        try {
          await client.db(dbName).dropDatabase();
        } catch {
          // Best effort: the server may be gone; the scratch database holds nothing live.
        } finally {
          await client.close();
        }
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'verify-'));
  const store = embeddedReadStore(join(dir, 'scratch.db'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const snapshot = async (store: ReadStore, collection: string): Promise<Map<string, Doc>> =>
  new Map((await store.collection(collection).find({}, {})).map((doc) => [doc._id, doc]));

const ROUNDS = 5;

/**
 * Verified replay: rebuilds one projection from position 0 into a scratch store, up to the live
 * checkpoint, and compares it with the live read model — without touching the live one, so the
 * service keeps running. The live model keeps moving meanwhile: a document that differs is looked
 * at again after the scratch copy caught up with the live checkpoint (up to five rounds); what
 * still differs then, while nothing moved, is a real difference.
 */
export const verifyProjection = async (
  eventStore: EventStore,
  live: ReadStore,
  scratch: ReadStore,
  projection: Projection,
  onProgress?: (position: bigint, target: bigint) => void,
): Promise<VerifyReport> => {
  const head = await eventStore.headPosition();
  // Let the live projection reach the head as it is now (bounded), then compare at its checkpoint.
  await live.waitForCheckpoints([projection.name], head, 5_000);
  let target = (await live.getCheckpoint(projection.name)) ?? 0n;
  let reached = await projectToHead(eventStore, scratch, projection, { until: target, onProgress: (position) => onProgress?.(position, target) });
  const collections: VerifyReport['collections'] = [];
  const pending = new Map<string, Set<string>>();
  for (const name of projection.collections) {
    const liveDocs = await snapshot(live, name);
    const rebuilt = await snapshot(scratch, name);
    const ids = new Set([...liveDocs.keys(), ...rebuilt.keys()]);
    const differing = new Set([...ids].filter((id) => !isDeepStrictEqual(liveDocs.get(id), rebuilt.get(id))));
    pending.set(name, differing);
    collections.push({ name, live: liveDocs.size, rebuilt: rebuilt.size, differing: [] });
  }
  for (let round = 0; round < ROUNDS && [...pending.values()].some((ids) => ids.size > 0); round++) {
    const now = (await live.getCheckpoint(projection.name)) ?? 0n;
    if (now > target) {
      target = now;
      reached = await projectToHead(eventStore, scratch, projection, { after: reached, until: target, onProgress: (position) => onProgress?.(position, target) });
    } else if (round > 0) {
      break;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const [name, ids] of pending) {
      for (const id of [...ids]) {
        const [liveDoc, rebuiltDoc] = await Promise.all([live.collection(name).get(id), scratch.collection(name).get(id)]);
        if (isDeepStrictEqual(liveDoc, rebuiltDoc)) ids.delete(id);
      }
    }
  }
  for (const entry of collections) entry.differing = [...(pending.get(entry.name) ?? [])].sort();
  onProgress?.(target, target);
  return { projection: projection.name, position: target, collections, identical: collections.every((entry) => entry.differing.length === 0) };
};

/** Verifies one projection in its own scratch store, disposed of afterwards. */
export const verifyInScratch = async (
  config: Pick<Config, 'mongoUrl'>,
  eventStore: EventStore,
  live: ReadStore,
  projection: Projection,
  onProgress?: (position: bigint, target: bigint) => void,
): Promise<VerifyReport> => {
  const scratch = await openScratchStore(config);
  try {
    return await verifyProjection(eventStore, live, scratch.store, projection, onProgress);
  } finally {
    await scratch.dispose();
  }
};
