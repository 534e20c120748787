import { mediaByHash, ownedPet, petDecider, type ProfileInput } from '../../domain/pets/decide.ts';
import { petStream, type PetMedia, type PetRegistered, type PetRemoved, type PetState } from '../../domain/pets/pet.ts';
import { handleCommand, metadataFor, stateOf, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from '../../infrastructure/event-store/port.ts';
import { newEventId, randomId } from '../../infrastructure/ids.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { referencesOf } from './pet-references.ts';

export const newPetId = (): string => randomId(12);
export const newMediaId = (): string => randomId(12);
/** Blob key of a media record: `pet-<pet id>-<media id>`. */
export const mediaBlobKey = (petId: string, mediaId: string): string => `pet-${petId}-${mediaId}`;

export const registerPet = async (store: EventStore, accountId: string, input: ProfileInput, context: CommandContext) => {
  const references = await referencesOf(store, input);
  for (let attempt = 1; ; attempt++) {
    const petId = newPetId();
    try {
      const result = await handleCommand(
        store,
        petStream(petId),
        petDecider,
        { type: 'RegisterPet', pet_id: petId, account_id: accountId, input, references, now: new Date().toISOString() },
        context,
        { newStream: true },
      );
      return { registered: (result.events[0] as PetRegistered).data, state: result.state, position: result.position };
    } catch (error) {
      if (!isWrongExpectedRevision(error) || attempt >= 5) throw error;
    }
  }
};

export const updatePet = async (store: EventStore, petId: string, accountId: string, input: ProfileInput, context: CommandContext) => {
  const references = await referencesOf(store, input);
  const result = await handleCommand(
    store,
    petStream(petId),
    petDecider,
    { type: 'UpdatePet', account_id: accountId, input, references, now: new Date().toISOString() },
    context,
  );
  return { state: result.state, position: result.position };
};

/** Removes the pet, then its blobs (originals of every photo and video). */
export const removePet = async (store: EventStore, blobs: BlobStore, petId: string, accountId: string, context: CommandContext) => {
  const result = await handleCommand(store, petStream(petId), petDecider, { type: 'RemovePet', account_id: accountId, now: new Date().toISOString() }, context);
  const removed = result.events[0] as PetRemoved;
  await Promise.all(removed.data.blob_keys.map((key) => blobs.delete(key).catch(() => false)));
  return { position: result.position };
};

/** The pet's state, checked to be the caller's (403 for another account's, 404 when there is none). */
export const loadOwnedPet = async (store: EventStore, petId: string, accountId: string) => {
  const folded = await stateOf(store, petStream(petId), petDecider);
  return { ...folded, pet: ownedPet(folded.state, accountId) };
};

/**
 * Adds new media to a pet with the expected revision, storing blobs only for records that are
 * really new. `store(item)` puts one record's bytes in the blob store; blobs put for records that
 * end up not appended (a concurrent request stored the same bytes first, or the batch was then
 * refused) are deleted again. Answers, for each input item, the record it resolved to.
 */
export const addMedia = async (
  store: EventStore,
  blobs: BlobStore,
  petId: string,
  accountId: string,
  kind: 'photo' | 'video',
  items: PetMedia[],
  putBlob: (item: PetMedia) => Promise<void>,
  context: CommandContext,
): Promise<{ records: PetMedia[]; position: bigint | null; state: PetState }> => {
  const stream = petStream(petId);
  const stored = new Set<string>();
  let appended = new Set<string>();
  try {
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await stateOf(store, stream, petDecider);
      const now = new Date().toISOString();
      const dated = items.map((item) => ({ ...item, created_at: now }));
      const command =
        kind === 'photo'
          ? ({ type: 'AddPhotos', account_id: accountId, photos: dated, now } as const)
          : ({ type: 'AddVideo', account_id: accountId, video: dated[0], now } as const);
      const events = petDecider.decide(command, state);
      const fresh = events.flatMap((event) => (event.type === 'PetPhotosAdded' ? event.data.media : event.type === 'PetVideoAdded' ? [event.data.media] : []));
      for (const item of fresh) {
        if (!stored.has(item.blob_key)) {
          await putBlob(item);
          stored.add(item.blob_key);
        }
      }
      let position: bigint | null = null;
      if (events.length > 0) {
        try {
          const metadata = metadataFor(context, now);
          const result = await store.append(
            stream,
            events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
            { expectedRevision: revision ?? 'no_stream' },
          );
          position = result.position;
        } catch (error) {
          if (isWrongExpectedRevision(error) && attempt < 10) continue;
          throw error;
        }
      }
      appended = new Set(fresh.map((item) => item.blob_key));
      const after = events.reduce(petDecider.evolve, state);
      const records = items.map((item) => mediaByHash(after, kind, item.content_hash) as PetMedia);
      return { records, position, state: after };
    }
  } finally {
    const orphans = [...stored].filter((key) => !appended.has(key));
    await Promise.all(orphans.map((key) => blobs.delete(key).catch(() => false)));
  }
};
