import type { Decider, Event } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { BodyConditionOutput, BodyConditionRequestInputs, MuscleConditionOutput } from './body-condition-analysis.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * A photo/record analysis of a pet (weight estimate, age estimate, …) is a stream of its own,
 * `petanalysis-<analysis id>`: PetAnalysisRequested (command API, with the inputs it saw on the
 * pet's stream) → PetAnalysed or PetAnalysisFailed (the processor). One event type for every kind
 * of result, `PetAnalysed` with `kind`; the pets projection copies a result onto the pet.
 */
export const petAnalysisStream = (analysisId: string): string => `petanalysis-${analysisId}`;
export const PET_ANALYSIS_CATEGORY = 'petanalysis';

export const ANALYSIS_KINDS = ['weight_estimate', 'age_estimate', 'body_condition', 'muscle_condition', 'portrait'] as const;
export type AnalysisKind = (typeof ANALYSIS_KINDS)[number];

export type AnalysisInputs = {
  species_id: string | null;
  breed_id: string | null;
  body_condition_score: number | null;
  /** The pet's age today from its record (date of birth or the age its owner gave). */
  recorded_age_months: number | null;
  /** Ages given with photos at upload, carried forward to today, newest photo first. */
  photo_age_months: number[];
  photo_count: number;
  country: string | null;
} & BodyConditionRequestInputs;

export type WeightResult = { weight_kg: number; size_classification: string; reasons: string; generated_at: string };
export type AgeResult = { age_months: number; reasons: string; plausible_range: string; life_stage: string; generated_at: string };
/** A portrait: the media record it was stored as on the pet's stream (PetPortraitAdded). */
export type PortraitResult = { media_id: string; style: string; source_image_id: string; reasons: string; generated_at: string };
/** What a portrait request asks for (the route checked the photo belongs to the pet). */
export type PortraitOptions = { style: string; image_id: string; model: string | null };
export type AnalysisResult =
  | { kind: 'weight_estimate'; result: WeightResult }
  | { kind: 'age_estimate'; result: AgeResult }
  | { kind: 'body_condition'; result: BodyConditionOutput }
  | { kind: 'muscle_condition'; result: MuscleConditionOutput }
  | { kind: 'portrait'; result: PortraitResult };

export type PetAnalysisRequested = Event<
  'PetAnalysisRequested',
  { analysis_id: string; kind: AnalysisKind; pet_id: string; account_id: string; inputs: AnalysisInputs; requested_at: string; portrait?: PortraitOptions }
>;
export type PetAnalysed = Event<'PetAnalysed', { analysis_id: string; pet_id: string; account_id: string } & AnalysisResult>;
export type PetAnalysisFailed = Event<'PetAnalysisFailed', { analysis_id: string; kind: AnalysisKind; pet_id: string; reason: string; failed_at: string }>;
export type PetAnalysisEvent = PetAnalysisRequested | PetAnalysed | PetAnalysisFailed;

/** The events of `petanalysis-…` streams, told apart where they are read back. */
export const petAnalysisEvents = streamEvents<PetAnalysisEvent>(PET_ANALYSIS_CATEGORY, { PetAnalysisRequested: true, PetAnalysed: true, PetAnalysisFailed: true });

export type PetAnalysisState =
  | { status: 'none' }
  | { status: 'requested' | 'done' | 'failed'; request: PetAnalysisRequested['data'] };

export type PetAnalysisCommand =
  | { type: 'RequestAnalysis'; request: PetAnalysisRequested['data'] }
  | { type: 'RecordAnalysis'; outcome: AnalysisResult | { failed: string }; now: string };

export const petAnalysisDecider: Decider<PetAnalysisState, PetAnalysisCommand, PetAnalysisEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PetAnalysisRequested':
        return { status: 'requested', request: event.data };
      case 'PetAnalysed':
        return state.status === 'none' ? state : { ...state, status: 'done' };
      case 'PetAnalysisFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed' };
    }
  },
  decide: (command, state) => {
    if (command.type === 'RequestAnalysis') {
      if (state.status !== 'none') throw new DomainError('conflict', `analysis ${command.request.analysis_id} already exists`);
      return [{ type: 'PetAnalysisRequested', data: command.request }];
    }
    // Only the first outcome counts: a request delivered twice yields one result.
    if (state.status !== 'requested') return [];
    const { analysis_id, pet_id, account_id, kind } = state.request;
    if ('failed' in command.outcome) return [{ type: 'PetAnalysisFailed', data: { analysis_id, kind, pet_id, reason: command.outcome.failed, failed_at: command.now } }];
    if (command.outcome.kind !== kind) throw new Error(`analysis ${analysis_id} is a ${kind}, not a ${command.outcome.kind}`);
    return [{ type: 'PetAnalysed', data: { analysis_id, pet_id, account_id, ...command.outcome } as PetAnalysed['data'] }];
  },
};

/** The analysis fields of the Pet resource a result sets. */
export const petFieldsOf = (analysed: PetAnalysed['data']): Record<string, unknown> => {
  switch (analysed.kind) {
    case 'weight_estimate':
      return {
        estimated_weight_kg: analysed.result.weight_kg,
        estimated_size_classification: analysed.result.size_classification,
        estimated_weight_reasons: analysed.result.reasons,
        estimated_weight_timestamp: analysed.result.generated_at,
      };
    case 'age_estimate':
      return {
        estimated_age_months: analysed.result.age_months,
        estimated_age_reasons: analysed.result.reasons,
        estimated_age_timestamp: analysed.result.generated_at,
      };
    case 'body_condition':
      return {
        body_condition_score: analysed.result.score,
        body_condition_score_reasons: analysed.result.reasons,
        body_condition_score_timestamp: analysed.result.generated_at,
      };
    case 'muscle_condition':
      return {
        muscle_wasting_risk: analysed.result.wasting_risk_flag,
        muscle_condition_reasons: analysed.result.reasons,
        muscle_condition_timestamp: analysed.result.generated_at,
      };
    case 'portrait':
      // A portrait is a media record on the pet's own stream, not a field of the pet.
      return {};
  }
};
