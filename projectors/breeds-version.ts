import { BREEDS_VERSION_ID, REFERENCE_COLLECTIONS, type BreedsVersionDoc } from '../contracts/reference-read-models.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/**
 * Records that the breeds collection changed at `position` (see BreedsVersionDoc): every write of
 * a breed document is followed by this one, in the same batch, so the version never lags the
 * documents it stands for when the checkpoint that covers both is stored.
 */
export const markBreedsChanged = async (store: ReadStore, position: bigint): Promise<void> => {
  await store.collection<BreedsVersionDoc>(REFERENCE_COLLECTIONS.breedsVersion).upsert({ _id: BREEDS_VERSION_ID, position: position.toString() }, position);
};

/**
 * A store whose breeds were projected before the version existed gets one at position 0 (the
 * guard lets any real change overwrite it): from then on the catalogue rebuilds on changes only.
 */
export const seedBreedsVersion = async (store: ReadStore): Promise<void> => {
  const versions = store.collection<BreedsVersionDoc>(REFERENCE_COLLECTIONS.breedsVersion);
  if (!(await versions.get(BREEDS_VERSION_ID))) await versions.upsert({ _id: BREEDS_VERSION_ID, position: '0' }, 0n);
};
