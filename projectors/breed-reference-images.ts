import { Collections, type BreedImageDoc, type BreedReferenceCandidateDoc } from '../contracts/read-models.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc } from '../contracts/reference-read-models.ts';
import { breedIdsAfter, type ImageEvent } from '../domain/images/image.ts';
import { canBeReference, speciesConfidence, type ReferenceFacts } from '../domain/images/reference-image.ts';
import type { Recorded } from '../infrastructure/event-store/recorded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { markBreedsChanged } from './breeds-version.ts';

/**
 * A breed's `reference_image_id` (TheCatAPI): its best public image — the highest detection
 * confidence of the breed's species, not unsafe, not a child crop (domain/images/reference-image.ts)
 * — and null while there is none. It stays until a strictly better one arrives (ties go to the one
 * public first) or it stops qualifying (deleted, untagged, found unsafe, no longer public): then the
 * next best takes its place.
 *
 * The breeds projection keeps its own record of each image (collection breed_images) and, for each
 * breed tagged on an image that qualifies, a candidate (breed_reference_candidates, scalar fields
 * indexed by breed and rank), so choosing is one indexed read and a rebuild gives the same answer
 * whatever order the projections run in. Every write carries the event's position (replays change
 * nothing), and the breeds' version moves only when a reference changes — or when the reference
 * image itself changes (its labels, breeds), as the served breed embeds it — never on votes or on
 * images that are nobody's reference.
 */
export const CANDIDATE_ORDER = { breed_id: 1, confidence: -1, public_since: 1, _id: 1 } as const;

const candidateId = (breedId: string, imageId: string): string => `${breedId}|${imageId}`;

const factsOf = (doc: BreedImageDoc): ReferenceFacts => ({
  public_since: doc.public_since,
  unsafe: doc.unsafe ?? false,
  child: doc.child ?? false,
  species_id: doc.species_id ?? null,
  confidence: doc.confidence ?? 0,
});

/** The best candidate of a breed of `speciesId` (one read along the candidates index), null when none. */
export const referenceImageOf = async (store: ReadStore, breedId: string, speciesId: string): Promise<string | null> => {
  const [best] = await store
    .collection<BreedReferenceCandidateDoc>(Collections.breedReferenceCandidates)
    .find({ breed_id: breedId, species_id: { $in: [speciesId, null] } }, { sort: { confidence: -1, public_since: 1, _id: 1 }, limit: 1 });
  return best?.image_id ?? null;
};

/** Re-chooses the reference of each breed; bumps the breeds' version when one moved, or when `touched` is (still) one. */
const refreshBreeds = async (store: ReadStore, breedIds: Iterable<string>, position: bigint, touched: string): Promise<void> => {
  const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
  let changed = false;
  for (const breedId of new Set(breedIds)) {
    const breed = await breeds.get(breedId);
    if (!breed) continue;
    const reference = await referenceImageOf(store, breedId, breed.species_id);
    if (breed.resource.reference_image_id === reference) {
      // The same reference, but the image it names changed: the embedded copy must be rebuilt.
      if (reference === touched) changed = true;
      continue;
    }
    await breeds.upsert({ ...breed, resource: { ...breed.resource, reference_image_id: reference } }, position);
    changed = true;
  }
  if (changed) await markBreedsChanged(store, position);
};

/** Writes the candidates `after` stands for and removes those `before` stood for and `after` does not. */
const syncCandidates = async (store: ReadStore, imageId: string, before: BreedImageDoc | null, after: BreedImageDoc | null, position: bigint): Promise<void> => {
  const candidates = store.collection<BreedReferenceCandidateDoc>(Collections.breedReferenceCandidates);
  const wanted = after && canBeReference(factsOf(after)) ? after.breed_ids : [];
  const had = before && canBeReference(factsOf(before)) ? before.breed_ids : [];
  for (const breedId of had) if (!wanted.includes(breedId)) await candidates.delete(candidateId(breedId, imageId), position);
  if (!after) return;
  const facts = factsOf(after);
  for (const breedId of wanted) {
    await candidates.upsert(
      {
        _id: candidateId(breedId, imageId),
        breed_id: breedId,
        image_id: imageId,
        species_id: facts.species_id,
        confidence: facts.confidence,
        public_since: facts.public_since ?? 0,
      },
      position,
    );
  }
};

/** The image's record after `event` (null once deleted); `before` unchanged for events that change nothing weighed. */
const nextDoc = (event: Recorded<ImageEvent>, before: BreedImageDoc | null): BreedImageDoc | null | undefined => {
  switch (event.type) {
    case 'ImageUploaded':
      return {
        _id: event.data.image_id,
        breed_ids: [...event.data.breed_ids],
        public_since: null,
        unsafe: false,
        child: event.data.parent_image_id !== null,
        species_id: null,
        confidence: 0,
      };
    case 'ImageValidated':
      return before && { ...before, unsafe: event.data.verdict === 'unsafe' };
    case 'ImageLabelled':
      return before && { ...before, species_id: event.data.species_id, confidence: speciesConfidence(event.data.labels, event.data.species_id) };
    case 'ImageBreedTagged':
    case 'ImageBreedUntagged':
      return before && { ...before, breed_ids: breedIdsAfter(before.breed_ids, event) };
    case 'ImagePublicRequestDecided':
      return before && (before.public_since !== null || event.data.status !== 'approved' ? before : { ...before, public_since: Number(event.position) });
    case 'ImagePublished':
      return before && (before.public_since !== null ? before : { ...before, public_since: Number(event.position) });
    case 'ImageDeleted':
      return null;
    default:
      return undefined;
  }
};

/** Applies an image event: records what is weighed of the image, its candidacies, then re-chooses the breeds it touched. */
export const applyImageToBreeds = async (event: Recorded<ImageEvent>, store: ReadStore): Promise<void> => {
  const images = store.collection<BreedImageDoc>(Collections.breedImages);
  const imageId = event.data.image_id;
  const before = await images.get(imageId);
  const after = nextDoc(event, before);
  if (after === undefined) return;
  if (after) await images.upsert(after, event.position);
  else if (before) await images.delete(imageId, event.position);
  const wasCandidate = before !== null && canBeReference(factsOf(before));
  const isCandidate = after !== null && canBeReference(factsOf(after));
  // Only images that may be a reference count: a change to any other moves nothing.
  if (!wasCandidate && !isCandidate) return;
  await syncCandidates(store, imageId, before, after, event.position);
  await refreshBreeds(store, [...(before?.breed_ids ?? []), ...(after?.breed_ids ?? [])], event.position, imageId);
};
