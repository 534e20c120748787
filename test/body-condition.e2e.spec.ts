import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { SIDE, TOP, sideView, topView } from './silhouettes.ts';
import { drawScene, visionDouble } from './vision-double.ts';
import { startReceiver, verifySignature, type Receiver } from './webhook-receiver.ts';

/**
 * Body condition score, its vet review and muscle condition end to end: synthetic silhouettes
 * drawn with sharp at known proportions, uploaded as pet photos with poses, measured by the
 * processor (the detector is the test double, which boxes the drawn animal), the score appended,
 * projected onto the pet and answered; low confidence sends the score to a vet (webhooks
 * pet.bcs.review_requested, then pet.bcs.reviewed after the admin's decision).
 */

let service: TestService;
let key = '';
let otherKey = '';
let noFeatureKey = '';
let receiver: Receiver;
let secret = '';

beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true }, undefined, { vision: visionDouble() });
  key = (await service.createAccount({ name: 'bcs' })).api_key;
  otherKey = (await service.createAccount({ name: 'bcs other' })).api_key;
  noFeatureKey = (await service.createAccount({ name: 'bcs no features', features: ['pets'] })).api_key;
  receiver = await startReceiver();
  const hook = await service.request('POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, description: 'vet reviews', enabled_events: ['pet.bcs.review_requested', 'pet.bcs.reviewed'] },
  });
  expect(hook.status).toBe(201);
  secret = hook.body.signing_secret;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await service?.dispose();
});

const newPet = async (body: Record<string, unknown>): Promise<string> => {
  const response = await service.request('POST', '/v1/pets', { key, body });
  expect(response.status).toBe(201);
  return response.body.id;
};

const addPhotos = async (petId: string, photos: { image: Buffer; pose: string }[]) => {
  const form = new FormData();
  form.append('poses', JSON.stringify(Object.fromEntries(photos.map((photo, index) => [String(index), photo.pose]))));
  photos.forEach((photo, index) => form.append('images', new Blob([new Uint8Array(photo.image)], { type: 'image/png' }), `pose-${index}.png`));
  const response = await fetch(`${service.url}/v1/pets/${petId}/images`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  expect(response.status).toBe(201);
};

/** The webhook deliveries of one event for one pet (the receiver is shared by the suite). */
const deliveriesFor = async (event: string, petId: string, count = 1) => {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = receiver.received.filter((request) => request.headers['x-webhook-event'] === event && JSON.parse(request.body).pet_id === petId);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('body condition score from silhouettes', () => {
  it('an hourglass from above and a tucked belly from the side score ideal (4–5), set on the pet; no review', async () => {
    const petId = await newPet({ name: 'Ideal', breed_id: 'labrador-retriever', age_years: 3, sub_id: 'owner-1' });
    await addPhotos(petId, [
      { image: await topView(TOP.ideal), pose: 'top' },
      { image: await sideView(SIDE.ideal), pose: 'side' },
    ]);
    const response = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key });
    expect(response.status).toBe(200);
    const result = response.body;
    expect(Object.keys(result).sort()).toEqual(['breed_predispositions', 'condition_flags', 'confidence', 'confidence_reason', 'generated_at', 'reasons', 'score']);
    expect(result.score).toBeGreaterThanOrEqual(4);
    expect(result.score).toBeLessThanOrEqual(5);
    expect(result.condition_flags).toContain('ideal');
    expect(result.confidence).toBeGreaterThanOrEqual(0.6);
    expect(result.confidence_reason).toMatch(/top and side views measured/);
    expect(result.confidence_reason).toMatch(/no recorded weight/);
    expect(result.reasons).toMatch(/Labrador Retriever: ideal weight 30.5 kg/);
    // The Labrador's own care advice warns about obesity.
    expect(result.breed_predispositions.join(' ')).toMatch(/weight gain/);
    const pet = await service.request('GET', `/v1/pets/${petId}`, { key });
    expect(pet.body).toMatchObject({ body_condition_score: result.score, body_condition_score_reasons: result.reasons, body_condition_score_timestamp: result.generated_at });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((request) => JSON.parse(request.body).pet_id === petId)).toHaveLength(0);
  });

  it('no waist from above and a hanging belly score 7–9', async () => {
    const petId = await newPet({ name: 'Barrel', species_id: '2' });
    await addPhotos(petId, [
      { image: await topView(TOP.obese), pose: 'back' },
      { image: await sideView(SIDE.obese), pose: 'side' },
    ]);
    const response = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key });
    expect(response.status).toBe(200);
    expect(response.body.score).toBeGreaterThanOrEqual(7);
    expect(response.body.condition_flags).toEqual(expect.arrayContaining(['no_waist_from_above', 'abdominal_sag']));
    expect(response.body.breed_predispositions).toEqual([]);
  });

  it('a deep waist and a marked tuck score 2–3; a weight far over the breed range is flagged', async () => {
    const petId = await newPet({ name: 'Lean', breed_id: 'labrador-retriever' });
    await addPhotos(petId, [
      { image: await topView(TOP.thin), pose: 'top' },
      { image: await sideView(SIDE.thin), pose: 'side' },
    ]);
    const thin = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key });
    expect(thin.status).toBe(200);
    expect(thin.body.score).toBeGreaterThanOrEqual(2);
    expect(thin.body.score).toBeLessThanOrEqual(3);
    expect(thin.body.condition_flags).toEqual(expect.arrayContaining(['underweight', 'prominent_waist', 'pronounced_abdominal_tuck']));
    // 30 kg is near the Labrador's ideal: it agrees with nothing here, but is not beyond the range.
    const heavy = await service.request('POST', `/v1/pets/${petId}/body-condition-score?weight_kg=60`, { key });
    expect(heavy.status).toBe(200);
    expect(heavy.body.condition_flags).toContain('weight_above_breed_range');
    expect(heavy.body.confidence_reason).toMatch(/contradicts/);
    expect(heavy.body.confidence).toBeLessThan(thin.body.confidence);
    expect(heavy.body.reasons).toMatch(/recorded weight 60 kg/);
  });
});

describe('vet review', () => {
  it('one view only is low confidence: review requested automatically; the vet corrects it; deciding twice is idempotent or 409', async () => {
    const petId = await newPet({ name: 'One view', species_id: '2', sub_id: 'owner-42' });
    await addPhotos(petId, [{ image: await topView(TOP.ideal), pose: 'top' }]);
    const response = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key });
    expect(response.status).toBe(200);
    expect(response.body.confidence).toBeLessThan(0.6);
    expect(response.body.condition_flags).toContain('vet_review_recommended');
    expect(response.body.confidence_reason).toMatch(/only the top view measured.*sent to vet review/);

    const [requested] = await deliveriesFor('pet.bcs.review_requested', petId);
    expect(requested).toBeDefined();
    expect(verifySignature(requested.headers['x-webhook-signature'] as string, requested.body, secret)).toBe(true);
    const review = JSON.parse(requested.body);
    expect(review).toMatchObject({
      pet_id: petId,
      status: 'pending',
      trigger: 'low_confidence',
      score: response.body.score,
      original_score: response.body.score,
      confidence: response.body.confidence,
      sub_id: 'owner-42',
      external_owner_id: 'owner-42',
      _metadata: { event_type: 'pet.bcs.review_requested' },
    });

    const decisionPath = `/v1/body-condition-score/reviews/${review.id}/decision`;
    expect((await service.request('POST', decisionPath, { key, body: { status: 'completed', corrected_score: 6 } })).status).toBe(403);
    const rejectedWithScore = await service.request('POST', decisionPath, { key: ADMIN_KEY, body: { status: 'rejected', corrected_score: 6 } });
    expect(rejectedWithScore.status).toBe(400);
    const decided = await service.request('POST', decisionPath, { key: ADMIN_KEY, body: { status: 'completed', corrected_score: 6, vet_notes: 'ribs hard to feel' } });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: review.id, status: 'completed', score: 6, original_score: response.body.score, corrected_score: 6, vet_notes: 'ribs hard to feel' });
    const again = await service.request('POST', decisionPath, { key: ADMIN_KEY, body: { status: 'completed', corrected_score: 6, vet_notes: 'ribs hard to feel' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(decided.body);
    const different = await service.request('POST', decisionPath, { key: ADMIN_KEY, body: { status: 'rejected' } });
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('conflict');
    expect((await service.request('POST', '/v1/body-condition-score/reviews/nosuchreview/decision', { key: ADMIN_KEY, body: { status: 'rejected' } })).status).toBe(404);

    // Readable: the review by id (its owner only), the pet's reviews.
    expect((await service.request('GET', `/v1/body-condition-score/reviews/${review.id}`, { key })).body).toEqual(decided.body);
    expect((await service.request('GET', `/v1/body-condition-score/reviews/${review.id}`, { key: otherKey })).status).toBe(403);
    expect((await service.request('GET', '/v1/body-condition-score/reviews/nosuchreview', { key })).status).toBe(404);
    expect((await service.request('GET', `/v1/pets/${petId}/body-condition-score/reviews`, { key })).body).toEqual([decided.body]);

    const reviewed = await deliveriesFor('pet.bcs.reviewed', petId);
    expect(reviewed).toHaveLength(1);
    const { _metadata, ...body } = JSON.parse(reviewed[0].body);
    expect(body).toEqual(decided.body);
    expect(_metadata.event_type).toBe('pet.bcs.reviewed');
    // The vet's score is now the pet's.
    const pet = await service.request('GET', `/v1/pets/${petId}`, { key });
    expect(pet.body.body_condition_score).toBe(6);
    expect(pet.body.body_condition_score_reasons).toMatch(/vet review: corrected from \d to 6/);
  });

  it('an explicit request scores the pet and opens a review with the note and owner id', async () => {
    const petId = await newPet({ name: 'Asked', species_id: '2', sub_id: 'sub-7' });
    await addPhotos(petId, [
      { image: await topView(TOP.ideal), pose: 'top' },
      { image: await sideView(SIDE.ideal), pose: 'side' },
    ]);
    const response = await service.request('POST', `/v1/pets/${petId}/body-condition-score/reviews`, { key, body: { note: 'please check', external_owner_id: 'crm-991' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ pet_id: petId, status: 'pending', trigger: 'requested', note: 'please check', sub_id: 'sub-7', external_owner_id: 'crm-991' });
    expect(response.body.confidence).toBeGreaterThanOrEqual(0.6);
    const [delivery] = await deliveriesFor('pet.bcs.review_requested', petId);
    const { _metadata, ...body } = JSON.parse(delivery.body);
    expect(body).toEqual(response.body);
    // The vets' work list (admin key) shows it waiting.
    const waiting = await service.request('GET', '/v1/admin/body-condition-score/reviews?status=pending', { key: ADMIN_KEY });
    expect(waiting.status).toBe(200);
    expect(waiting.body.map((item: { id: string }) => item.id)).toContain(response.body.id);
    expect(waiting.body.every((item: { status: string }) => item.status === 'pending')).toBe(true);
    expect((await service.request('GET', '/v1/admin/body-condition-score/reviews', { key })).status).toBe(403);
    const rejected = await service.request('POST', `/v1/body-condition-score/reviews/${response.body.id}/decision`, { key: ADMIN_KEY, body: { status: 'rejected', vet_notes: 'photo too dark' } });
    expect(rejected.body).toMatchObject({ status: 'rejected', score: response.body.score, corrected_score: null });
    // A rejection leaves the pet's score as it was measured.
    expect((await service.request('GET', `/v1/pets/${petId}`, { key })).body.body_condition_score).toBe(response.body.score);
    // No body at all is an empty request.
    const bare = await service.request('POST', `/v1/pets/${petId}/body-condition-score/reviews`, { key });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ note: null, external_owner_id: 'sub-7' });
    expect(bare.body.id).not.toBe(response.body.id);
  });
});

describe('muscle condition', () => {
  it('full hindquarters: no wasting flag; wasted hindquarters: flagged, with the reasons; set on the pet', async () => {
    const full = await newPet({ name: 'Strong', species_id: '2', age_years: 3 });
    await addPhotos(full, [{ image: await topView(TOP.fullHindquarters), pose: 'top' }]);
    const fine = await service.request('POST', `/v1/pets/${full}/muscle-condition`, { key });
    expect(fine.status).toBe(200);
    expect(Object.keys(fine.body).sort()).toEqual(['generated_at', 'reasons', 'wasting_risk_flag']);
    expect(fine.body.wasting_risk_flag).toBe(false);
    expect(fine.body.reasons).toMatch(/well muscled/);

    const wasted = await newPet({ name: 'Old', species_id: '2', age_years: 12 });
    await addPhotos(wasted, [{ image: await topView(TOP.wastedHindquarters), pose: 'back' }]);
    const flagged = await service.request('POST', `/v1/pets/${wasted}/muscle-condition`, { key });
    expect(flagged.status).toBe(200);
    expect(flagged.body.wasting_risk_flag).toBe(true);
    expect(flagged.body.reasons).toMatch(/hindquarters look wasted/);
    expect(flagged.body.reasons).toMatch(/senior \(12 years\)/);
    const pet = await service.request('GET', `/v1/pets/${wasted}`, { key });
    expect(pet.body).toMatchObject({ muscle_wasting_risk: true, muscle_condition_reasons: flagged.body.reasons, muscle_condition_timestamp: flagged.body.generated_at });
  });
});

describe('access and evidence', () => {
  it('400 pet_has_no_photos without a photo in the needed poses; 422 when no silhouette can be measured; 403 for features and other accounts', async () => {
    const petId = await newPet({ name: 'Front only', species_id: '2' });
    expect((await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key })).body.code).toBe('pet_has_no_photos');
    await addPhotos(petId, [{ image: await topView(TOP.ideal), pose: 'front' }]);
    const front = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key });
    expect(front.status).toBe(400);
    expect(front.body.code).toBe('pet_has_no_photos');
    expect(front.body.message).toMatch(/top, back, side/);
    // A side photo only is enough for the score, not for muscle condition.
    await addPhotos(petId, [{ image: await sideView(SIDE.ideal), pose: 'side' }]);
    expect((await service.request('POST', `/v1/pets/${petId}/muscle-condition`, { key })).body.code).toBe('pet_has_no_photos');

    const empty = await newPet({ name: 'Empty scene', species_id: '2' });
    await addPhotos(empty, [{ image: await drawScene(320, 240, [], 'png'), pose: 'top' }]);
    const nothing = await service.request('POST', `/v1/pets/${empty}/body-condition-score`, { key });
    expect(nothing.status).toBe(422);
    expect(nothing.body.code).toBe('analysis_not_possible');
    expect(nothing.body.message).toMatch(/no cat, dog or horse/);

    expect((await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key: otherKey })).status).toBe(403);
    expect((await service.request('POST', `/v1/pets/${petId}/muscle-condition`, { key: otherKey })).status).toBe(403);
    const bcs = await service.request('POST', `/v1/pets/${petId}/body-condition-score`, { key: noFeatureKey });
    expect(bcs.status).toBe(403);
    expect(bcs.body.code).toBe('feature_not_enabled');
    expect(bcs.body.message).toContain('body_condition');
    const reviewFeature = await service.request('POST', `/v1/pets/${petId}/body-condition-score/reviews`, { key: noFeatureKey });
    expect(reviewFeature.body.message).toContain('body_condition');
    const muscle = await service.request('POST', `/v1/pets/${petId}/muscle-condition`, { key: noFeatureKey });
    expect(muscle.status).toBe(403);
    expect(muscle.body.message).toContain('muscle_condition');
  });
});
