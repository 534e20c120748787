import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { CAT_RGB, drawScene, visionDouble } from './vision-double.ts';
import { waitUntil } from './webhook-receiver.ts';

/**
 * The pipeline when things go wrong: upload-sync past its deadline (503 with the image id, the
 * image finishes in the background), a model step that fails (retried, recorded once), and a
 * service that goes down mid-image (the restarted service finishes it).
 */

const services: TestService[] = [];
afterAll(async () => {
  for (const service of services) await service.dispose().catch(() => undefined);
});

const photo = () => drawScene(320, 240, [{ rgb: CAT_RGB, left: 30, top: 30, width: 120, height: 100 }], 'png');

const upload = async (service: TestService, key: string, path = '/v1/images/upload') =>
  service.request('POST', path, { key, body: { type: 'base64', image: (await photo()).toString('base64') } });

const eventTypes = async (service: TestService, id: string) =>
  (await service.adapters.eventStore.readStream(`image-${id}`)).map((event) => event.type);

const waitForLabelled = (service: TestService, key: string, id: string) =>
  waitUntil(async () => (await service.request('GET', `/v1/images/${id}/status`, { key })).body?.status === 'labelled', 20_000, `image ${id} labelled`);

describe('image pipeline under failure', () => {
  it('upload-sync answers 503 analysis_unavailable with the image id past its deadline; the image finishes later', { timeout: 60_000 }, async () => {
    const vision = visionDouble();
    let release!: () => void;
    vision.gate = new Promise<void>((resolve) => (release = resolve));
    const service = await startTestService({ uploadSyncTimeoutMs: 300, referenceDataImport: false }, undefined, { vision });
    services.push(service);
    const { api_key: key } = await service.createAccount();
    const started = Date.now();
    const answer = await upload(service, key, '/v1/images/upload-sync');
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('analysis_unavailable');
    expect(answer.body.image_id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Date.now() - started).toBeLessThan(5000);
    const id = answer.body.image_id as string;
    expect((await service.request('GET', `/v1/images/${id}/status`, { key })).body.status).toBe('to_be_reviewed');
    vision.gate = null;
    release();
    await waitForLabelled(service, key, id);
  });

  it('a failing model step is retried and its result recorded once', { timeout: 60_000 }, async () => {
    const vision = visionDouble();
    vision.failNext = 2;
    const service = await startTestService({ referenceDataImport: false }, undefined, { vision });
    services.push(service);
    const { api_key: key } = await service.createAccount();
    const id = (await upload(service, key)).body.id as string;
    await waitForLabelled(service, key, id);
    expect(vision.failNext).toBe(0);
    expect(await eventTypes(service, id)).toEqual(['ImageUploaded', 'ImageValidated', 'ImageLabelled']);
  });

  it('RUN_PROCESSORS=false leaves the pipeline to another process: nothing runs, nothing is lost', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'img-noproc-'));
    const unused = visionDouble();
    const commandOnly = await startTestService({ referenceDataImport: false, runProcessors: false, uploadSyncTimeoutMs: 500 }, dataDir, { vision: unused });
    const { api_key: key } = await commandOnly.createAccount();
    const uploaded = (await upload(commandOnly, key)).body;
    const id = uploaded.id as string;
    // No image-sizes processor either: `med` (320 px here: never enlarged) stands in for thumb, uncached.
    const standIn = await fetch(`${uploaded.url}?size=thumb`);
    expect(standIn.status).toBe(200);
    expect([standIn.headers.get('etag'), standIn.headers.get('cache-control'), standIn.headers.get('last-modified')]).toEqual([`"${uploaded.url.match(/files\/([^.]+)/)[1]}.med"`, 'no-store', null]);
    expect((await sharp(Buffer.from(await standIn.arrayBuffer())).metadata()).width).toBe(320);
    const sync = await upload(commandOnly, key, '/v1/images/upload-sync');
    expect(sync.status).toBe(503);
    expect(sync.body.code).toBe('analysis_unavailable');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await commandOnly.request('GET', `/v1/images/${id}/status`, { key })).body.status).toBe('to_be_reviewed');
    expect(unused.calls.moderate + unused.calls.classify + unused.calls.detect).toBe(0);
    await commandOnly.stop();

    const withProcessors = await startTestService({ referenceDataImport: false }, dataDir, { vision: visionDouble() });
    services.push(withProcessors);
    await waitForLabelled(withProcessors, key, id);
    await waitForLabelled(withProcessors, key, sync.body.image_id as string);
    expect(await eventTypes(withProcessors, id)).toEqual(['ImageUploaded', 'ImageValidated', 'ImageLabelled']);
    const thumb = await waitUntil(async () => {
      const answer = await fetch(`${uploaded.url.replace(commandOnly.url, withProcessors.url)}?size=thumb`);
      return answer.headers.get('etag')?.endsWith('.thumb"') ? answer : (await answer.arrayBuffer(), undefined);
    }, 20_000, 'thumb made after the restart');
    expect(thumb.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(150);
  });

  it('a service stopped mid-image finishes it after restart', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'img-crash-'));
    const stuck = visionDouble();
    let crash!: (error: Error) => void;
    stuck.gate = new Promise<void>((_, reject) => (crash = reject));
    const first = await startTestService({ referenceDataImport: false }, dataDir, { vision: stuck });
    const { api_key: key } = await first.createAccount();
    const id = (await upload(first, key)).body.id as string;
    await waitUntil(async () => stuck.calls.moderate > 0, 10_000, 'validation started');
    // Going down while the model runs: the handler dies mid-image, nothing of it is committed.
    const stopping = first.stop();
    crash(new Error('process going down'));
    await stopping;

    const healthy = visionDouble();
    const second = await startTestService({ referenceDataImport: false }, dataDir, { vision: healthy });
    services.push(second);
    await waitForLabelled(second, key, id);
    expect(healthy.calls.moderate).toBeGreaterThanOrEqual(1);
    expect(await eventTypes(second, id)).toEqual(['ImageUploaded', 'ImageValidated', 'ImageLabelled']);
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  });
});
