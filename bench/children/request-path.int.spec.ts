import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../infrastructure/sqlite.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../harness/service.ts';
import { requestJson } from '../harness/http.ts';

/**
 * Item 2's request-path service must answer votes as the all-in-one does (same routes, hooks and
 * errors) while its appends reach no log: otherwise its figure measures something else.
 */
describe('bench request-path service', () => {
  let service: RunningService;
  let key: string;

  beforeAll(async () => {
    service = await startService('embedded', 'request_path_spec', { script: 'bench/children/request-path.ts' });
    key = readFileSync(join(service.dataDir, 'request-path-api-key'), 'utf8');
  }, 240_000); // the service is compiled first (bench/harness/build.ts)

  afterAll(async () => {
    await service?.stop();
  });

  it('answers POST /v1/votes as the service does, authenticated and validated', async () => {
    const created = await requestJson(`${service.url}/v1/votes`, { method: 'POST', key, body: { image_id: 'bench-image', value: 1, sub_id: 'bench' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'SUCCESS', image_id: 'bench-image', value: 1, sub_id: 'bench' });
    expect(typeof (created.body as { id: unknown }).id).toBe('number');

    const invalid = await requestJson(`${service.url}/v1/votes`, { method: 'POST', key, body: { image_id: 'bench-image', value: 7 } });
    expect(invalid.status).toBe(400);
    const anonymous = await requestJson(`${service.url}/v1/votes`, { method: 'POST', key: null, body: { image_id: 'bench-image', value: 1 } });
    expect(anonymous.status).toBe(403);
  });

  it('stores none of its votes: the appends cost nothing and reach no log', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await requestJson(`${service.url}/v1/votes`, { method: 'POST', key, body: { image_id: `image-${i}`, value: -1 } });
      expect(created.status).toBe(201);
    }
    const db = new Database(join(service.dataDir, 'events.db'), { readonly: true, fileMustExist: true });
    try {
      const types = db.prepare('SELECT type, count(*) AS n FROM events GROUP BY type').all() as { type: string; n: number }[];
      expect(types.map((row) => row.type)).not.toContain('VoteCast');
      expect(types.map((row) => row.type)).toContain('AccountOpened');
    } finally {
      db.close();
    }
  });
});
