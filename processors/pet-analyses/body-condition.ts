import {
  petAnalysisEvents,
  petAnalysisDecider,
  petAnalysisStream,
  type AnalysisResult,
  type PetAnalysisRequested,
} from '../../domain/pet-analyses/analysis.ts';
import { bcsReviewDecider, bcsReviewStream } from '../../domain/pet-analyses/bcs-review.ts';
import { SIDE_POSES, TOP_POSES, type BodyConditionOutput } from '../../domain/pet-analyses/body-condition-analysis.ts';
import {
  analyseBodyCondition,
  REVIEW_CONFIDENCE,
  scoreFromTop,
  type BreedBodyData,
  type ViewEvidence,
} from '../../domain/pet-analyses/body-condition.ts';
import { analyseMuscleCondition } from '../../domain/pet-analyses/muscle-condition.ts';
import { measureSideView, measureTopView, type SideMeasurement, type TopMeasurement } from '../../domain/pet-analyses/silhouette.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { decodeAll } from '../../infrastructure/event-store/recorded.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { ImageDecodeError } from '../../infrastructure/vision/decode.ts';
import { processorContext } from '../images/context.ts';
import { defineProcessor, type ProcessorDeps } from '../processor.ts';
import { breedRecord } from './breed-record.ts';
import { silhouetteOf } from './silhouette.ts';

/** A mask below this quality is not measured (its reason is reported instead). */
export const MIN_MASK_QUALITY = 0.3;

type Evidence = { top: ViewEvidence<TopMeasurement>[]; side: ViewEvidence<SideMeasurement>[]; skipped: string[] };

/** Detects the animal on each photo of the needed poses, cuts out its silhouette and measures it. */
const measurePhotos = async (request: PetAnalysisRequested['data'], deps: ProcessorDeps, withSide: boolean): Promise<Evidence> => {
  const evidence: Evidence = { top: [], side: [], skipped: [] };
  for (const photo of request.inputs.photos ?? []) {
    const isTop = photo.pose !== null && TOP_POSES.includes(photo.pose);
    const isSide = withSide && photo.pose !== null && SIDE_POSES.includes(photo.pose);
    if (!isTop && !isSide) continue;
    const label = `photo ${photo.media_id} (${photo.pose})`;
    const blob = await deps.blobs!.get(photo.blob_key);
    if (!blob) {
      evidence.skipped.push(`${label}: its bytes are gone`);
      continue;
    }
    let found: Awaited<ReturnType<typeof silhouetteOf>>;
    try {
      found = await silhouetteOf(deps.vision!, blob.data, request.inputs.species_id);
    } catch (error) {
      // Undecodable bytes never improve; anything else (models missing, a worker crash) is retried by the bus.
      if (!(error instanceof ImageDecodeError)) throw error;
      evidence.skipped.push(`${label}: the photo could not be decoded`);
      continue;
    }
    if ('reason' in found) {
      evidence.skipped.push(`${label}: ${found.reason}`);
      continue;
    }
    const { silhouette } = found;
    if (silhouette.quality < MIN_MASK_QUALITY) {
      evidence.skipped.push(`${label}: the silhouette could not be separated from the background (mask quality ${silhouette.quality}${silhouette.notes.length ? `; ${silhouette.notes.join('; ')}` : ''})`);
      continue;
    }
    const measurement = isTop ? measureTopView(silhouette.mask) : measureSideView(silhouette.mask);
    if (!measurement) {
      evidence.skipped.push(`${label}: the silhouette is too small or shows no torso to measure`);
      continue;
    }
    if (measurement.view === 'top') evidence.top.push({ measurement, quality: silhouette.quality, media_id: photo.media_id });
    else evidence.side.push({ measurement, quality: silhouette.quality, media_id: photo.media_id });
  }
  return evidence;
};

const breedBodyData = async (store: EventStore, breedId: string): Promise<BreedBodyData | null> => {
  const record = await breedRecord(store, breedId);
  if (!record) return null;
  const tips = Array.isArray(record.care_tips) ? (record.care_tips as { title?: unknown; description?: unknown }[]) : [];
  return {
    id: breedId,
    name: String(record.name ?? breedId),
    species_id: String(record.species_id),
    weight_kg: typeof record.weight_kg === 'string' && record.weight_kg !== '' ? record.weight_kg : null,
    short_legs: record.short_legs === true,
    health_issues: typeof record.health_issues === 'number' ? record.health_issues : null,
    care_texts: tips.map((tip) => `${String(tip.title ?? '')}: ${String(tip.description ?? '')}`),
  };
};

const skippedNote = (skipped: string[]) => (skipped.length > 0 ? ` Not used: ${skipped.join('; ')}.` : '');

const compute = async (request: PetAnalysisRequested['data'], deps: ProcessorDeps): Promise<AnalysisResult | { failed: string }> => {
  const { inputs } = request;
  const now = new Date().toISOString();
  if (request.kind === 'body_condition') {
    const evidence = await measurePhotos(request, deps, true);
    const breed = inputs.breed_id ? await breedBodyData(deps.eventStore, inputs.breed_id) : null;
    const analysed = analyseBodyCondition({ top: evidence.top, side: evidence.side, breed, weightKg: inputs.weight_kg ?? null });
    if (!analysed.ok) return { failed: `${analysed.reason}.${skippedNote(evidence.skipped)}` };
    const result: BodyConditionOutput = { ...analysed.result, reasons: analysed.result.reasons + skippedNote(evidence.skipped), generated_at: now };
    return { kind: 'body_condition', result };
  }
  const evidence = await measurePhotos(request, deps, false);
  const measuredBcs = evidence.top.length > 0 ? Math.round(evidence.top.reduce((sum, view) => sum + scoreFromTop(view.measurement), 0) / evidence.top.length) : null;
  const analysed = analyseMuscleCondition({
    top: evidence.top,
    speciesId: inputs.species_id,
    ageMonths: inputs.recorded_age_months ?? inputs.photo_age_months[0] ?? null,
    bcs: inputs.body_condition_score ?? measuredBcs,
    bcsSource: inputs.body_condition_score !== null ? 'recorded on the pet' : 'from the same top-view photos',
  });
  if (!analysed.ok) return { failed: `${analysed.reason}.${skippedNote(evidence.skipped)}` };
  return {
    kind: 'muscle_condition',
    result: { wasting_risk_flag: analysed.result.wasting_risk_flag, reasons: analysed.result.reasons + skippedNote(evidence.skipped), generated_at: now },
  };
};

/**
 * Body condition score and muscle condition: on PetAnalysisRequested of those kinds, measures the
 * silhouettes of the pet's photos (detector box → mask → widths) and appends PetAnalysed or
 * PetAnalysisFailed. A score whose confidence is below REVIEW_CONFIDENCE, or that was asked for
 * with a vet review, opens the review `bcsreview-<analysis id>`. Every step is decided on its
 * stream's state, so a redelivered request measures nothing again and opens no second review; a
 * crash between the two appends is repaired by the redelivery.
 */
export const bodyConditionProcessor = defineProcessor({
  name: 'pet-analyses.body-condition',
  streams: [petAnalysisEvents],
  requires: ['vision', 'blobs'],
  async handle(event, deps) {
    if (event.type !== 'PetAnalysisRequested') return;
    const request = event.data;
    if (request.kind !== 'body_condition' && request.kind !== 'muscle_condition') return;
    const stream = petAnalysisStream(request.analysis_id);
    const context = processorContext('pet-analyses.body-condition', event);
    const folded = await stateOf(deps.eventStore, stream, petAnalysisDecider);
    if (folded.state.status === 'requested') {
      const outcome = await compute(request, deps);
      await handleCommand(deps.eventStore, stream, petAnalysisDecider, { type: 'RecordAnalysis', outcome, now: new Date().toISOString() }, context, { known: folded });
    }
    if (request.kind !== 'body_condition') return;
    const analysed = decodeAll(petAnalysisEvents, await deps.eventStore.readStream(stream)).find((recorded) => recorded.type === 'PetAnalysed');
    if (analysed?.type !== 'PetAnalysed') return;
    const data = analysed.data;
    if (data.kind !== 'body_condition') return;
    const { result } = data;
    const review = request.inputs.review ?? null;
    if (!review && result.confidence >= REVIEW_CONFIDENCE) return;
    await handleCommand(
      deps.eventStore,
      bcsReviewStream(request.analysis_id),
      bcsReviewDecider,
      {
        type: 'RequestBcsReview',
        request: {
          review_id: request.analysis_id,
          analysis_id: request.analysis_id,
          pet_id: request.pet_id,
          account_id: request.account_id,
          sub_id: request.inputs.sub_id ?? null,
          external_owner_id: review?.external_owner_id ?? request.inputs.sub_id ?? null,
          trigger: review ? 'requested' : 'low_confidence',
          note: review?.note ?? null,
          score: result.score,
          confidence: result.confidence,
          confidence_reason: result.confidence_reason,
          condition_flags: result.condition_flags,
          reasons: result.reasons,
          requested_at: result.generated_at,
        },
      },
      context,
    );
  },
});
