import { estimateAge, estimateWeight, type BreedData } from '../../domain/pet-analyses/growth.ts';
import {
  petAnalysisEvents,
  petAnalysisDecider,
  petAnalysisStream,
  type AnalysisResult,
} from '../../domain/pet-analyses/analysis.ts';
import { breedRecord } from './breed-record.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { defineProcessor } from '../processor.ts';

/** The breed as its own stream has it now (latest published or revised record; null if none or withdrawn). */
const breedData = async (store: EventStore, breedId: string): Promise<BreedData | null> => {
  const record = await breedRecord(store, breedId);
  if (!record) return null;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { id: breedId, name: String(record.name ?? breedId), species_id: String(record.species_id), weight_kg: text(record.weight_kg), life_span: text(record.life_span) };
};

/**
 * Weight and age estimates: on PetAnalysisRequested, computes the estimate from the inputs the
 * request captured and the breed's record, and appends PetAnalysed or PetAnalysisFailed (with
 * the reason) on the analysis stream. Deterministic, and decided on the stream's state, so a
 * redelivered request appends nothing.
 */
export const estimatesProcessor = defineProcessor({
  name: 'pet-analyses.estimates',
  streams: [petAnalysisEvents],
  async handle(event, deps) {
    if (event.type !== 'PetAnalysisRequested') return;
    const request = event.data;
    if (request.kind !== 'weight_estimate' && request.kind !== 'age_estimate') return; // other kinds have processors of their own
    const { inputs } = request;
    const breed = inputs.breed_id ? await breedData(deps.eventStore, inputs.breed_id) : null;
    const now = new Date().toISOString();
    let outcome: AnalysisResult | { failed: string };
    if (request.kind === 'weight_estimate') {
      const ageMonths = inputs.recorded_age_months ?? inputs.photo_age_months[0] ?? null;
      const estimate = estimateWeight({ breed, ageMonths, bcs: inputs.body_condition_score });
      outcome = estimate.ok
        ? { kind: 'weight_estimate', result: { weight_kg: estimate.weight_kg, size_classification: estimate.size_classification, reasons: estimate.reasons, generated_at: now } }
        : { failed: estimate.reason };
    } else {
      const estimate = estimateAge({ species: inputs.species_id, recordedAgeMonths: inputs.recorded_age_months, photoAgeMonths: inputs.photo_age_months, breed });
      outcome = estimate.ok
        ? {
            kind: 'age_estimate',
            result: { age_months: estimate.age_months, reasons: estimate.reasons, plausible_range: estimate.plausible_range, life_stage: estimate.life_stage, generated_at: now },
          }
        : { failed: estimate.reason };
    }
    const context: CommandContext = {
      accountId: request.account_id,
      requestId: null,
      correlationId: event.metadata.correlation_id ?? null,
      causationId: event.id,
      actor: 'processor:estimates',
    };
    await handleCommand(deps.eventStore, petAnalysisStream(request.analysis_id), petAnalysisDecider, { type: 'RecordAnalysis', outcome, now }, context);
  },
});
