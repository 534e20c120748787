import type { Decider, Event } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * One respiratory-rate reading is a stream of its own, `respiratoryrate-<result id>`:
 * requested (command API) → processing → completed | failed (the processor). The processor's
 * steps are decided on the stream's state and appended with its expected revision, so a request
 * delivered twice by the bus yields one result.
 */
export const respiratoryRateStream = (resultId: string): string => `respiratoryrate-${resultId}`;
export const RESPIRATORY_RATE_CATEGORY = 'respiratoryrate';

export type RespiratoryStatus = 'pending' | 'processing' | 'completed' | 'failed';

export type RespiratoryRateRequested = Event<
  'RespiratoryRateRequested',
  {
    result_id: string;
    pet_id: string;
    account_id: string;
    sub_id: string | null;
    species_id: string | null;
    breed_id: string | null;
    video_id: string;
    blob_key: string;
    requested_at: string;
  }
>;
export type RespiratoryRateProcessing = Event<'RespiratoryRateProcessing', { result_id: string; started_at: string }>;
export type RespiratoryRateCompleted = Event<
  'RespiratoryRateCompleted',
  {
    result_id: string;
    pet_id: string;
    account_id: string;
    video_id: string;
    requested_at: string;
    breaths_per_minute: number;
    breed_baseline: { low: number; high: number } | null;
    within_baseline: boolean | null;
    reasons: string;
    generated_at: string;
  }
>;
export type RespiratoryRateFailed = Event<'RespiratoryRateFailed', { result_id: string; reason: string; failed_at: string }>;

export type RespiratoryRateEvent = RespiratoryRateRequested | RespiratoryRateProcessing | RespiratoryRateCompleted | RespiratoryRateFailed;

/** The events of `respiratoryrate-…` streams, told apart where they are read back. */
export const respiratoryRateEvents = streamEvents<RespiratoryRateEvent>(RESPIRATORY_RATE_CATEGORY, { RespiratoryRateRequested: true, RespiratoryRateProcessing: true, RespiratoryRateCompleted: true, RespiratoryRateFailed: true });

export type RespiratoryRateState =
  | { status: 'none' }
  | { status: RespiratoryStatus; request: RespiratoryRateRequested['data'] };

export type RespiratoryRateCommand =
  | { type: 'RequestRespiratoryRate'; request: RespiratoryRateRequested['data'] }
  | { type: 'StartRespiratoryRate'; now: string }
  | {
      type: 'CompleteRespiratoryRate';
      breaths_per_minute: number;
      breed_baseline: { low: number; high: number } | null;
      reasons: string;
      now: string;
    }
  | { type: 'FailRespiratoryRate'; reason: string; now: string };

/** Within the resting baseline (inclusive); null when there is no baseline for the species. */
export const withinBaseline = (rate: number, baseline: { low: number; high: number } | null): boolean | null =>
  baseline === null ? null : rate >= baseline.low && rate <= baseline.high;

export const respiratoryRateDecider: Decider<RespiratoryRateState, RespiratoryRateCommand, RespiratoryRateEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'RespiratoryRateRequested':
        return { status: 'pending', request: event.data };
      case 'RespiratoryRateProcessing':
        return state.status === 'none' ? state : { ...state, status: 'processing' };
      case 'RespiratoryRateCompleted':
        return state.status === 'none' ? state : { ...state, status: 'completed' };
      case 'RespiratoryRateFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'RequestRespiratoryRate':
        if (state.status !== 'none') throw new DomainError('conflict', `respiratory-rate result ${command.request.result_id} already exists`);
        return [{ type: 'RespiratoryRateRequested', data: command.request }];
      case 'StartRespiratoryRate':
        // Only a pending request starts; a redelivered request changes nothing.
        return state.status === 'pending' ? [{ type: 'RespiratoryRateProcessing', data: { result_id: state.request.result_id, started_at: command.now } }] : [];
      case 'CompleteRespiratoryRate':
        if (state.status !== 'processing') return [];
        return [
          {
            type: 'RespiratoryRateCompleted',
            data: {
              result_id: state.request.result_id,
              pet_id: state.request.pet_id,
              account_id: state.request.account_id,
              video_id: state.request.video_id,
              requested_at: state.request.requested_at,
              breaths_per_minute: command.breaths_per_minute,
              breed_baseline: command.breed_baseline,
              within_baseline: withinBaseline(command.breaths_per_minute, command.breed_baseline),
              reasons: command.reasons,
              generated_at: command.now,
            },
          },
        ];
      case 'FailRespiratoryRate':
        if (state.status !== 'processing') return [];
        return [{ type: 'RespiratoryRateFailed', data: { result_id: state.request.result_id, reason: command.reason, failed_at: command.now } }];
    }
  },
};
