import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobKeysFor, imageStream, type ImageLabel } from '../domain/images/image.ts';
import { newEventId } from '../infrastructure/ids.ts';
import { seedImage } from './image-fixtures.ts';
import { hasChromium, openChromiumPage } from './chromium.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

/**
 * The moderation page of the operations console in a real browser (Debian's chromium, driven by
 * playwright-core, as test/console.e2e.spec.ts): the queues of pending public requests, images
 * flagged unsafe and images held for the safety check, each photo with its detection boxes drawn
 * over it, its labels, attribution and the requester's message; approving and rejecting (with a
 * message) through the admin API, checked against the API. Screenshots go to
 * test-output/moderation/ (not committed).
 */
const SHOTS = join(process.cwd(), 'test-output', 'moderation');

let service: TestService;
let page: Page;
let closeBrowser: (() => Promise<void>) | undefined;
let owner: { key: string; id: string };
const images: Record<'liked' | 'blurry' | 'unsafe' | 'held', string> = { liked: '', blurry: '', unsafe: '', held: '' };

const CAT_BOX = { Width: 0.5, Height: 0.6, Left: 0.25, Top: 0.2 };
const labels: ImageLabel[] = [
  { Name: 'Cat', Confidence: 97.2, Instances: [{ BoundingBox: CAT_BOX, Confidence: 97.2 }], Parents: [{ Name: 'Animal' }] },
  { Name: 'Abyssinian', Confidence: 81.5, Instances: [], Parents: [{ Name: 'Cat' }] },
];

/** A photo whose bytes the file route serves (the seeded events name its blob keys). */
const photo = async (seed: Parameters<typeof seedImage>[2], colour: string): Promise<string> => {
  const id = await seedImage(service, owner.id, seed);
  const jpeg = await sharp({ create: { width: 480, height: 360, channels: 3, background: colour } })
    .composite([{ input: await sharp({ create: { width: 240, height: 216, channels: 3, background: '#c48a3f' } }).png().toBuffer(), left: 120, top: 72 }])
    .jpeg()
    .toBuffer();
  const keys = blobKeysFor(id);
  for (const key of [keys.full, keys.med]) await service.adapters.blobs.put(key, jpeg, 'image/jpeg');
  return id;
};

const requestPublic = async (id: string, message: string) =>
  expect((await service.request('POST', `/v1/images/${id}/public-requests`, { key: owner.key, body: { request_message: message } })).status).toBe(201);

const cards = () => page.$$eval('#moderation-items article', (items) => items.map((item) => (item as unknown as { dataset: Record<string, string> }).dataset.image));

describe.skipIf(!hasChromium())('moderation page of the operations console in chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    service = await startTestService();
    const account = await service.createAccount({ name: 'Moderated' });
    owner = { key: account.api_key, id: account.account_id };
    images.liked = await photo({ breed_ids: ['abys'], labelled: { species_id: '1', labels } }, '#3d6b8f');
    images.blurry = await photo({ breed_ids: [], labelled: { species_id: '1', labels: labels.slice(0, 1) } }, '#7a8f3d');
    images.unsafe = await photo({ breed_ids: [] }, '#8f3d5e');
    images.held = await photo({ breed_ids: [] }, '#555555');
    await requestPublic(images.liked, 'Our Abyssinian Tom, happy to share him');
    await requestPublic(images.blurry, 'please publish');
    // The safety check found one unsafe.
    const now = new Date().toISOString();
    await service.adapters.eventStore.append(
      imageStream(images.unsafe),
      [
        {
          id: newEventId(),
          type: 'ImageValidated',
          data: {
            image_id: images.unsafe,
            account_id: owner.id,
            verdict: 'unsafe',
            unsafe_reasons: ['Explicit Nudity'],
            moderation_labels: [{ Name: 'Explicit Nudity', Confidence: 91.3, ParentName: '' }],
            scores: {},
            threshold: 0.7,
            model: 'fixture',
            validated_at: now,
          },
          metadata: { account_id: owner.id, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: now, schema_version: 1 },
        },
      ],
      { expectedRevision: 0n },
    );
    await service.adapters.readStore.waitForCheckpoints(['images'], await service.adapters.eventStore.headPosition(), 10_000);
    ({ page, close: closeBrowser } = await openChromiumPage({ width: 1400, height: 1100 }));
  }, 120_000);

  afterAll(async () => {
    await closeBrowser?.();
    await service?.dispose();
  });

  it('lists the pending public requests with the photo, its boxes, labels, attribution and the requester’s message', async () => {
    await page.goto(`${service.url}/v1/admin/console`);
    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector(`#moderation-items article[data-image="${images.liked}"]`);
    expect((await cards()).sort()).toEqual([images.liked, images.blurry].sort());
    expect(await page.textContent('#moderation-count')).toBe('2 in this queue');

    const card = `#moderation-items article[data-image="${images.liked}"]`;
    // The photo itself loaded (served from this origin by the file route), with the cat's box over it.
    await expect.poll(() => page.$eval(`${card} img`, (img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(480);
    const box = await page.$eval(`${card} .box[data-label="Cat"]`, (element) => {
      const style = (element as unknown as { style: Record<string, string> }).style;
      return { left: style.left, top: style.top, width: style.width, height: style.height, text: element.textContent };
    });
    expect(box).toEqual({ left: '25%', top: '20%', width: '50%', height: '60%', text: 'Cat 97.2%' });
    // The box sits where the fractions say, over the rendered photo.
    const [photoBox, drawn] = await Promise.all([page.locator(`${card} img`).boundingBox(), page.locator(`${card} .box`).boundingBox()]);
    expect(Math.abs(drawn!.x - (photoBox!.x + photoBox!.width * 0.25))).toBeLessThan(2);
    expect(Math.abs(drawn!.width - photoBox!.width * 0.5)).toBeLessThan(2);
    expect(await page.textContent(`${card} .labels`)).toBe('Cat 97.2% · Abyssinian 81.5%');
    expect(await page.textContent(`${card} .message`)).toBe('“Our Abyssinian Tom, happy to share him”');
    const attribution = await page.textContent(`${card} .attribution`);
    const image = (await service.request('GET', `/v1/images/${images.liked}`, { key: owner.key })).body;
    if (image.attribution) expect(attribution).toContain(image.attribution.license);
    else expect(attribution).toBe('no attribution');
    await page.screenshot({ path: join(SHOTS, '1-pending.png'), fullPage: true });
  }, 60_000);

  it('approves one and rejects the other with a message, through the admin API', async () => {
    const liked = `#moderation-items article[data-image="${images.liked}"]`;
    await page.fill(`${liked} textarea`, 'Lovely photo');
    await page.click(`${liked} button.approve`);
    await page.waitForSelector(`${liked}[data-decision="approved"]`);
    const blurry = `#moderation-items article[data-image="${images.blurry}"]`;
    await page.fill(`${blurry} textarea`, 'Too blurry to publish');
    await page.click(`${blurry} button.reject`);
    await page.waitForSelector(`${blurry}[data-decision="rejected"]`);
    expect(await page.textContent(`${blurry} .decision`)).toBe('rejected: Too blurry to publish');
    await page.screenshot({ path: join(SHOTS, '2-decided.png'), fullPage: true });

    const approved = (await service.request('GET', `/v1/images/${images.liked}/public-requests`, { key: owner.key })).body;
    expect(approved).toMatchObject({ status: 'approved', admin_message: 'Lovely photo' });
    const rejected = (await service.request('GET', `/v1/images/${images.blurry}/public-requests`, { key: owner.key })).body;
    expect(rejected).toMatchObject({ status: 'rejected', admin_message: 'Too blurry to publish' });
    expect((await service.request('GET', `/v1/images/${images.liked}`, { key: owner.key })).body.approved).toBe(1);

    await page.click('#moderation-reload');
    await expect.poll(() => page.textContent('#moderation-status')).toBe('Nothing to moderate here.');
    expect(await cards()).toEqual([]);
  }, 60_000);

  it('shows images flagged unsafe with their reasons, and images held for the safety check, without decision buttons', async () => {
    await page.selectOption('#moderation-queue', 'flagged');
    await page.waitForSelector(`#moderation-items[data-queue="flagged"] article[data-image="${images.unsafe}"]`);
    expect(await cards()).toEqual([images.unsafe]);
    expect(await page.textContent(`#moderation-items article[data-image="${images.unsafe}"] .flags`)).toBe('unsafe: Explicit Nudity, Explicit Nudity 91.3%');
    expect(await page.$$(`#moderation-items article button`)).toHaveLength(0);
    await page.screenshot({ path: join(SHOTS, '3-flagged.png'), fullPage: true });

    await page.selectOption('#moderation-queue', 'held');
    await page.waitForSelector(`#moderation-items[data-queue="held"] article[data-image="${images.held}"]`);
    expect(await cards()).toEqual([images.held]);
    expect(await page.textContent(`#moderation-items article[data-image="${images.held}"] .labels`)).toBe('no labels yet');
    await page.screenshot({ path: join(SHOTS, '4-held.png'), fullPage: true });

    // The API the page reads, as the admin sees it.
    const held = await fetch(`${service.url}/v1/admin/images/moderation?queue=held`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(held.headers.get('pagination-count')).toBe('1');
    expect(((await held.json()) as { image: { id: string; status: string } }[]).map((item) => [item.image.id, item.image.status])).toEqual([[images.held, 'to_be_reviewed']]);
    const refused = await fetch(`${service.url}/v1/admin/images/moderation?queue=held`, { headers: { 'x-api-key': owner.key } });
    expect(refused.status).toBe(403);
    const bad = await fetch(`${service.url}/v1/admin/images/moderation?queue=everything`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(bad.status).toBe(400);
  }, 60_000);
});
