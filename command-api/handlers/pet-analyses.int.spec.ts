import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PetMedia } from '../../domain/pets/pet.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { requestAnalysis } from './pet-analyses.ts';
import { registerPet } from './pets.ts';
import { handleCommand } from '../../infrastructure/event-store/command-handler.ts';
import { petDecider } from '../../domain/pets/decide.ts';
import { petStream } from '../../domain/pets/pet.ts';

/** The waiting side of an analysis request, with no processor running: never a made-up result. */
let dir = '';
let store: EventStore;
const context = { accountId: 'acc', requestId: null, actor: null };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pet-analyses-'));
  store = sqliteEventStore(join(dir, 'events.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const photo = (id: string): PetMedia => ({
  media_id: id,
  kind: 'photo',
  blob_key: `pet-x-${id}`,
  content_hash: id,
  mime_type: 'image/png',
  size_bytes: 10,
  width: 8,
  height: 8,
  pose: 'side',
  age_years: null,
  age_months: null,
  pet_age_months: null,
  description: null,
  original_filename: null,
  duration_seconds: null,
  video_codec: null,
  container: null,
  review_status: 'pending',
  created_at: new Date().toISOString(),
});

describe('requestAnalysis', () => {
  it('400 pet_has_no_photos for a pet without photos', async () => {
    const { registered } = await registerPet(store, 'acc', { name: 'x' }, context);
    await expect(requestAnalysis(store, registered.pet_id, 'acc', 'age_estimate', context, 200)).rejects.toMatchObject({ code: 'pet_has_no_photos' });
  });

  it('503 analysis_unavailable when no processor answers in time, and 403 for another account', async () => {
    const { registered } = await registerPet(store, 'acc', { name: 'x', age_years: 2 }, context);
    const now = new Date().toISOString();
    await handleCommand(store, petStream(registered.pet_id), petDecider, { type: 'AddPhotos', account_id: 'acc', photos: [photo('p1')], now }, context);
    const started = Date.now();
    await expect(requestAnalysis(store, registered.pet_id, 'acc', 'age_estimate', context, 300)).rejects.toMatchObject({ code: 'analysis_unavailable' });
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(requestAnalysis(store, registered.pet_id, 'other', 'age_estimate', context, 300)).rejects.toMatchObject({ code: 'forbidden' });
  });
});
