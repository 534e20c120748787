import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petAnalysisStream, type PetAnalysisRequested } from '../../domain/pet-analyses/analysis.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { newEventId } from '../../infrastructure/ids.ts';
import { estimatesProcessor } from './estimates.ts';

/** The estimates processor against a real event store: the breed read from its stream, one result per request. */
let dir = '';
let store: EventStore;
const logger = pino({ level: 'silent' });
const metadata = { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'estimates-'));
  store = sqliteEventStore(join(dir, 'events.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (kind: 'weight_estimate' | 'age_estimate'): PetAnalysisRequested['data'] => ({
  analysis_id: `a-${kind}`,
  kind,
  pet_id: 'p1',
  account_id: 'acc',
  inputs: { species_id: '2', breed_id: 'testbreed', body_condition_score: 3, recorded_age_months: 60, photo_age_months: [], photo_count: 1, country: null },
  requested_at: new Date().toISOString(),
});

const requested = async (data: PetAnalysisRequested['data']) => {
  await store.append(petAnalysisStream(data.analysis_id), [{ id: newEventId(), type: 'PetAnalysisRequested', data, metadata }], { expectedRevision: 'no_stream' });
  return (await store.readStream(petAnalysisStream(data.analysis_id)))[0];
};

describe('estimates processor', () => {
  it('estimates from the breed stream and appends one result even when the request is delivered twice', async () => {
    await store.append('breed-testbreed', [
      { id: newEventId(), type: 'BreedPublished', data: { record: { id: 'testbreed', name: 'Test Hound', species_id: '2', weight_kg: '20 - 30', life_span: '10 - 12' } }, metadata },
    ], { expectedRevision: 'no_stream' });
    const event = await requested(request('weight_estimate'));
    await estimatesProcessor.handle(event, { eventStore: store, logger });
    await estimatesProcessor.handle(event, { eventStore: store, logger });
    const events = await store.readStream(petAnalysisStream('a-weight_estimate'));
    expect(events.map((e) => e.type)).toEqual(['PetAnalysisRequested', 'PetAnalysed']);
    // 25 kg ideal, BCS 3 → 20 % under
    expect(events[1].data).toMatchObject({ kind: 'weight_estimate', result: { weight_kg: 20, size_classification: 'large' } });
  });

  it('a breed that is not published: the weight estimate fails with the reason', async () => {
    const event = await requested(request('weight_estimate'));
    await estimatesProcessor.handle(event, { eventStore: store, logger });
    const events = await store.readStream(petAnalysisStream('a-weight_estimate'));
    expect(events.map((e) => e.type)).toEqual(['PetAnalysisRequested', 'PetAnalysisFailed']);
  });
});
