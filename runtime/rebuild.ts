import { isDeepStrictEqual } from 'node:util';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { Doc, ReadStore } from '../infrastructure/read-store/port.ts';
import type { Projection } from '../projectors/projection.ts';
import { projectToHead } from '../projectors/runner.ts';

export type RebuildReport = {
  projection: string;
  position: bigint;
  collections: { name: string; before: number; after: number; differing: string[] }[];
  identical: boolean;
};

const snapshot = async (store: ReadStore, collection: string): Promise<Map<string, Doc>> =>
  new Map((await store.collection(collection).find({}, {})).map((doc) => [doc._id, doc]));

/**
 * Rebuilds one projection from position 0: snapshots the live documents, drops the collections and
 * the checkpoint, replays the whole log, and compares. `identical` proves the rebuilt read model
 * equals the one that was live; `differing` lists the ids that changed, appeared or vanished.
 */
export const rebuildProjection = async (
  eventStore: EventStore,
  readStore: ReadStore,
  projection: Projection,
  onProgress?: (position: bigint, head: bigint) => void,
): Promise<RebuildReport> => {
  const before = new Map<string, Map<string, Doc>>();
  for (const name of projection.collections) before.set(name, await snapshot(readStore, name));
  await readStore.drop(projection.collections, [projection.name]);
  const position = await projectToHead(eventStore, readStore, projection, { onProgress });
  const collections: RebuildReport['collections'] = [];
  for (const name of projection.collections) {
    const old = before.get(name) as Map<string, Doc>;
    const rebuilt = await snapshot(readStore, name);
    const ids = new Set([...old.keys(), ...rebuilt.keys()]);
    const differing = [...ids].filter((id) => !isDeepStrictEqual(old.get(id), rebuilt.get(id)));
    collections.push({ name, before: old.size, after: rebuilt.size, differing });
  }
  return { projection: projection.name, position, collections, identical: collections.every((c) => c.differing.length === 0) };
};
