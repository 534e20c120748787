import { DomainError } from '../../domain/errors.ts';
import {
  petAnalysisDecider,
  petAnalysisEvents,
  petAnalysisStream,
  type AnalysisKind,
  type AnalysisResult,
  type PetAnalysisRequested,
  type PortraitOptions,
} from '../../domain/pet-analyses/analysis.ts';
import { POSES_NEEDED, type BodyConditionRequestInputs } from '../../domain/pet-analyses/body-condition-analysis.ts';
import { monthsBetween, petAgeMonthsAt } from '../../domain/pets/rules.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { decodeAll } from '../../infrastructure/event-store/recorded.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { loadOwnedPet } from './pets.ts';

/** How long a request waits for the processor's result before answering 503 analysis_unavailable. */
export const ANALYSIS_WAIT_MS = Number(process.env.ANALYSIS_WAIT_MS ?? 15_000);
const POLL_MS = 25;

/**
 * Requests an analysis of the pet and waits (bounded) for its result on the analysis stream:
 * the pet must be the caller's and have a usable photo (not rejected by review); the request
 * carries what the pet's stream says now (species, breed, BCS, ages). The processor's result is
 * returned; its failure is 422 analysis_not_possible with the reason; no result in time is 503.
 */
export const requestAnalysis = async (
  store: EventStore,
  petId: string,
  accountId: string,
  kind: AnalysisKind,
  context: CommandContext,
  waitMs = ANALYSIS_WAIT_MS,
  /** Extra inputs of the body/muscle condition analyses (recorded weight, an explicit review). */
  extra: Pick<BodyConditionRequestInputs, 'weight_kg' | 'review'> = {},
  /** What a portrait request asks for (kind `portrait`). */
  portrait?: PortraitOptions,
): Promise<{ outcome: AnalysisResult; position: bigint | null; analysisId: string }> => {
  const { pet } = await loadOwnedPet(store, petId, accountId);
  const now = new Date().toISOString();
  const photos = [...pet.media.values()].filter((media) => media.kind === 'photo' && media.review_status !== 'rejected');
  if (photos.length === 0) throw new DomainError('pet_has_no_photos', 'this pet has no usable photos: add some with POST /v1/pets/{petId}/images first');
  const poses = POSES_NEEDED[kind];
  if (poses && !photos.some((photo) => photo.pose !== null && poses.includes(photo.pose))) {
    throw new DomainError('pet_has_no_photos', `this analysis needs a usable photo in pose ${poses.join(', ')}: add one with POST /v1/pets/{petId}/images and poses`);
  }
  const photoAges = photos
    .filter((photo) => photo.age_years !== null || photo.age_months !== null)
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .map((photo) => (photo.age_years ?? 0) * 12 + (photo.age_months ?? 0) + monthsBetween(photo.created_at, now));
  const request: PetAnalysisRequested['data'] = {
    analysis_id: randomId(12),
    kind,
    pet_id: pet.petId,
    account_id: pet.accountId,
    inputs: {
      species_id: pet.profile.species_id,
      breed_id: pet.profile.breed_id,
      body_condition_score: pet.profile.body_condition_score,
      recorded_age_months: petAgeMonthsAt(pet.profile, now),
      photo_age_months: photoAges,
      photo_count: photos.length,
      country: pet.profile.country,
      ...(poses ? { photos: photos.map((photo) => ({ media_id: photo.media_id, blob_key: photo.blob_key, pose: photo.pose })), sub_id: pet.profile.sub_id, ...extra } : {}),
    },
    requested_at: now,
    ...(portrait ? { portrait } : {}),
  };
  const stream = petAnalysisStream(request.analysis_id);
  await handleCommand(store, stream, petAnalysisDecider, { type: 'RequestAnalysis', request }, context, { newStream: true });

  const deadline = Date.now() + waitMs;
  for (;;) {
    const events = decodeAll(petAnalysisEvents, await store.readStream(stream));
    for (const typed of events) {
      if (typed.type === 'PetAnalysed') {
        const { analysis_id: _a, pet_id: _p, account_id: _c, ...outcome } = typed.data;
        return { outcome: outcome as AnalysisResult, position: typed.position, analysisId: request.analysis_id };
      }
      if (typed.type === 'PetAnalysisFailed') throw new DomainError('analysis_not_possible', typed.data.reason);
    }
    if (Date.now() >= deadline) {
      throw new DomainError('analysis_unavailable', `no analysis result within ${Math.round(waitMs / 1000)} s; the request ${request.analysis_id} is kept and its result will be set on the pet when it comes`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};
