import { describe, expect, it } from 'vitest';
import { foldEvents } from '../decider.ts';
import { respiratoryRateDecider as decider, withinBaseline, type RespiratoryRateEvent } from './respiratory-rate.ts';

const request = {
  result_id: 'r1',
  pet_id: 'p1',
  account_id: 'a1',
  sub_id: null,
  species_id: '2',
  breed_id: null,
  video_id: 'v1',
  blob_key: 'pet-p1-v1',
  requested_at: '2026-01-01T00:00:00.000Z',
};
const now = '2026-01-01T00:00:05.000Z';
const state = (...events: RespiratoryRateEvent[]) => foldEvents(decider, events);
const requested: RespiratoryRateEvent = { type: 'RespiratoryRateRequested', data: request };
const processing: RespiratoryRateEvent = { type: 'RespiratoryRateProcessing', data: { result_id: 'r1', started_at: now } };

describe('respiratory-rate result', () => {
  it('pending → processing → completed, with the baseline verdict', () => {
    expect(decider.decide({ type: 'RequestRespiratoryRate', request }, state())).toEqual([requested]);
    expect(decider.decide({ type: 'StartRespiratoryRate', now }, state(requested))).toEqual([processing]);
    const [completed] = decider.decide(
      { type: 'CompleteRespiratoryRate', breaths_per_minute: 24, breed_baseline: { low: 15, high: 30 }, reasons: 'r', now },
      state(requested, processing),
    );
    expect(completed).toMatchObject({ type: 'RespiratoryRateCompleted', data: { breaths_per_minute: 24, within_baseline: true, video_id: 'v1' } });
  });

  it('is idempotent: a second start or a result after the end decides nothing', () => {
    expect(decider.decide({ type: 'StartRespiratoryRate', now }, state(requested, processing))).toEqual([]);
    const failed: RespiratoryRateEvent = { type: 'RespiratoryRateFailed', data: { result_id: 'r1', reason: 'still', failed_at: now } };
    expect(decider.decide({ type: 'FailRespiratoryRate', reason: 'x', now }, state(requested, processing, failed))).toEqual([]);
    expect(decider.decide({ type: 'CompleteRespiratoryRate', breaths_per_minute: 3, breed_baseline: null, reasons: '', now }, state(requested))).toEqual([]);
  });

  it('baseline verdict', () => {
    expect(withinBaseline(31, { low: 15, high: 30 })).toBe(false);
    expect(withinBaseline(15, { low: 15, high: 30 })).toBe(true);
    expect(withinBaseline(20, null)).toBeNull();
  });
});
