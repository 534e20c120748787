import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { ffmpegPath } from '../processors/pet-analyses/decode-frames.ts';
import { startReceiver, verifySignature, type Receiver } from './webhook-receiver.ts';

/**
 * Pet analyses end to end: the calorie calculator on real breed data, and the respiratory rate
 * on videos made by ffmpeg whose breathing rate is known (a shape rising and falling 24 times a
 * minute; a still scene), through the command API, the bus, the processor and the read model.
 */

let service: TestService;
let key = '';
let otherKey = '';
let noFeatureKey = '';
let receiver: Receiver | null = null;
const work = mkdtempSync(join(tmpdir(), 'pet-analyses-'));
const run = promisify(execFile);

/** A 30 s clip: a dark box on a light ground, its top edge moving by ± `amplitude` px at `perMinute`. */
const breathingVideo = async (name: string, perMinute: number, amplitude: number): Promise<Buffer> => {
  const path = join(work, name);
  await run(ffmpegPath(), [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', 'color=c=0xdcdcdc:s=320x240:r=15:d=30',
    '-f', 'lavfi', '-i', 'color=c=0x303030:s=140x80:r=15:d=30',
    '-filter_complex', `[0][1]overlay=x=90:y='80+${amplitude}*sin(2*PI*t*${perMinute}/60)':shortest=1,format=yuv420p`,
    '-c:v', 'mpeg4', '-q:v', '3', path,
  ]);
  return readFileSync(path);
};

beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true });
  key = (await service.createAccount({ name: 'analyses' })).api_key;
  otherKey = (await service.createAccount({ name: 'analyses other' })).api_key;
  noFeatureKey = (await service.createAccount({ name: 'no analyses', features: ['pets'] })).api_key;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await service?.dispose();
  rmSync(work, { recursive: true, force: true });
});

const newPet = async (body: Record<string, unknown>, apiKey = key): Promise<string> => {
  const response = await service.request('POST', '/v1/pets', { key: apiKey, body });
  expect(response.status).toBe(201);
  return response.body.id;
};

const uploadVideo = async (petId: string, video: Buffer) => {
  const form = new FormData();
  form.append('file', new Blob([video], { type: 'video/mp4' }), 'sleeping.mp4');
  const response = await fetch(`${service.url}/v1/pets/${petId}/videos`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
};

const waitForResult = async (petId: string, resultId: string) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await service.request('GET', `/v1/pets/${petId}/respiratory-rate/${resultId}`, { key });
    expect(response.status).toBe(200);
    if (response.body.status === 'completed' || response.body.status === 'failed' || Date.now() > deadline) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

describe('calorie calculator', () => {
  it('computes RER and DER from a given weight and life stage', async () => {
    const response = await service.request('GET', '/v1/calculators/calories?weight_kg=16&species_id=2&life_stage=adult', { key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ weight_kg: 16, weight_source: 'weight_kg', rer_kcal_per_day: 560, factor: 1.6, der_kcal_per_day: 896 });
  });

  it("takes the breed's ideal weight and the pet's age", async () => {
    const breed = (await service.request('GET', '/v1/breeds/american-water-spaniel', { key })).body;
    const [low, high] = String(breed.weight_kg).split('-').map((part: string) => Number(part.trim()));
    const petId = await newPet({ name: 'Puppy', breed_id: 'american-water-spaniel', age_years: 0, age_months: 2 });
    const response = await service.request('GET', `/v1/calculators/calories?pet_id=${petId}`, { key });
    expect(response.status).toBe(200);
    const weight = Math.round(((low + high) / 2) * 10) / 10;
    expect(response.body).toMatchObject({ weight_kg: weight, weight_source: 'breed_ideal_weight', life_stage: 'puppy', life_stage_source: 'pet_age', factor: 3, species_id: '2' });
    expect(response.body.der_kcal_per_day).toBeCloseTo(3 * 70 * weight ** 0.75, 0);
  });

  it('422 weight_required without weight, breed or pet weight; 400 for a stage the species lacks; 403 without the feature', async () => {
    const petId = await newPet({ name: 'Nobody' });
    const none = await service.request('GET', `/v1/calculators/calories?pet_id=${petId}`, { key });
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('weight_required');
    expect((await service.request('GET', '/v1/calculators/calories', { key })).body.code).toBe('weight_required');
    const stage = await service.request('GET', '/v1/calculators/calories?weight_kg=4&species_id=1&life_stage=puppy', { key });
    expect(stage.status).toBe(400);
    const other = await service.request('GET', `/v1/calculators/calories?pet_id=${petId}&weight_kg=3`, { key: otherKey });
    expect(other.status).toBe(403);
    const feature = await service.request('GET', '/v1/calculators/calories?weight_kg=3', { key: noFeatureKey });
    expect(feature.status).toBe(403);
    expect(feature.body.message).toContain('calculators');
  });
});

describe('respiratory rate (early access)', () => {
  it('reads a shape moving 24 times a minute as 24 ± 2 breaths per minute, and sends pet.respiratory_rate.completed', async () => {
    receiver = await startReceiver();
    const hook = await service.request('POST', '/v1/webhooks', {
      key,
      body: { url: receiver.url, description: 'rr', enabled_events: ['pet.respiratory_rate.completed'] },
    });
    expect(hook.status).toBe(201);
    const petId = await newPet({ name: 'Sleepy', species_id: '2' });
    const video = await uploadVideo(petId, await breathingVideo('breath24.mp4', 24, 12));
    const requested = await service.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key });
    expect(requested.status).toBe(202);
    expect(requested.body).toMatchObject({ status: 'pending', video_id: video.id, pet_id: petId });
    const result = await waitForResult(petId, requested.body.id);
    expect(result.status).toBe('completed');
    expect(Math.abs(result.breaths_per_minute - 24)).toBeLessThanOrEqual(2);
    expect(result).toMatchObject({ breed_baseline: { low: 15, high: 30 }, within_baseline: true, video_id: video.id });
    expect(result.reasons).toMatch(/breathing region/);
    const [delivery] = await receiver.waitFor(1, 30_000);
    expect(delivery.headers['x-webhook-event']).toBe('pet.respiratory_rate.completed');
    expect(verifySignature(delivery.headers['x-webhook-signature'] as string, delivery.body, hook.body.signing_secret)).toBe(true);
    const { _metadata, ...resource } = JSON.parse(delivery.body);
    expect(resource).toEqual(result);
    expect(_metadata.event_type).toBe('pet.respiratory_rate.completed');
  }, 90_000);

  it('a still video fails with a reason instead of inventing a rate', async () => {
    const petId = await newPet({ name: 'Statue', species_id: '1' });
    await uploadVideo(petId, await breathingVideo('still.mp4', 24, 0));
    const requested = await service.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key });
    expect(requested.status).toBe(202);
    const result = await waitForResult(petId, requested.body.id);
    expect(result.status).toBe('failed');
    expect(result.breaths_per_minute).toBeNull();
    expect(result.failure_reason).toMatch(/no movement/);
  }, 90_000);

  it('400 pet_has_no_video, 403 for another account, 404 for an unknown result, 403 without the feature', async () => {
    const petId = await newPet({ name: 'No video' });
    const none = await service.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('pet_has_no_video');
    expect((await service.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key: otherKey })).status).toBe(403);
    expect((await service.request('GET', `/v1/pets/${petId}/respiratory-rate/nosuchresult`, { key })).status).toBe(404);
    const feature = await service.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key: noFeatureKey });
    expect(feature.status).toBe(403);
    expect(feature.body.message).toContain('respiratory_rate');
  });
});

const addPhoto = async (petId: string, fields: Record<string, string> = {}) => {
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 90, g: 60, b: 30 } } }).png().toBuffer();
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('images', new Blob([png], { type: 'image/png' }), 'pet.png');
  const response = await fetch(`${service.url}/v1/pets/${petId}/images`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  expect(response.status).toBe(201);
};

describe('weight and age estimates', () => {
  it('estimates an adult of its breed at BCS 7 and sets the result on the pet', async () => {
    const petId = await newPet({ name: 'Chunky', breed_id: 'american-water-spaniel', age_years: 4, body_condition_score: 7 });
    expect((await service.request('POST', `/v1/pets/${petId}/weight-estimate`, { key })).body.code).toBe('pet_has_no_photos');
    await addPhoto(petId);
    const response = await service.request('POST', `/v1/pets/${petId}/weight-estimate`, { key });
    expect(response.status).toBe(200);
    // breed range 11 - 20 kg → 15.5 kg ideal, +20 % at BCS 7
    expect(response.body).toMatchObject({ weight_kg: 18.6, size_classification: 'medium' });
    expect(response.body.reasons).toMatch(/11–20 kg/);
    const pet = await service.request('GET', `/v1/pets/${petId}`, { key });
    expect(pet.body).toMatchObject({
      estimated_weight_kg: 18.6,
      estimated_size_classification: 'medium',
      estimated_weight_reasons: response.body.reasons,
      estimated_weight_timestamp: response.body.generated_at,
    });
    const calories = await service.request('GET', `/v1/calculators/calories?pet_id=${petId}`, { key });
    expect(calories.body).toMatchObject({ weight_kg: 18.6, weight_source: 'pet_estimated_weight' });
  });

  it('age: exact from the record, from photo ages otherwise, 422 without evidence', async () => {
    const recorded = await newPet({ name: 'Known', species_id: '1', age_years: 1, age_months: 3 });
    await addPhoto(recorded);
    const exact = await service.request('POST', `/v1/pets/${recorded}/age-estimate`, { key });
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ age_months: 15, plausible_range: '15–15 months', life_stage: 'young_adult' });
    expect((await service.request('GET', `/v1/pets/${recorded}`, { key })).body.estimated_age_months).toBe(15);

    const fromPhoto = await newPet({ name: 'Photo aged', species_id: '2' });
    await addPhoto(fromPhoto, { age_years: '0', age_months: '5' });
    const estimated = await service.request('POST', `/v1/pets/${fromPhoto}/age-estimate`, { key });
    expect(estimated.body).toMatchObject({ age_months: 5, life_stage: 'puppy' });

    const unknown = await newPet({ name: 'Mystery', species_id: '2' });
    await addPhoto(unknown);
    const none = await service.request('POST', `/v1/pets/${unknown}/age-estimate`, { key });
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('analysis_not_possible');
    expect((await service.request('POST', `/v1/pets/${unknown}/weight-estimate`, { key })).body.code).toBe('analysis_not_possible');
    expect((await service.request('POST', `/v1/pets/${unknown}/age-estimate`, { key: noFeatureKey })).status).toBe(403);
  });
});
