import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, waitForHttp, type ServiceProcess } from './processes.ts';
import { ADMIN_KEY, TEST_SECRETS_KEY } from './service.ts';
import { startReceiver, waitUntil } from './webhook-receiver.ts';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { mongoReadStore } from '../infrastructure/read-store/mongo.ts';
import { projections } from '../projectors/index.ts';
import { projectToHead } from '../projectors/runner.ts';
import { fixturePath, resolveModelDir } from '../infrastructure/vision/index.ts';

/**
 * The separate-process topology on real servers: two command-api and two query-api replicas behind
 * the gateway, two projectors, processors and the dispatcher, on MongoDB (read models, write
 * positions) and Kafka (bus), with the embedded event store file shared by all processes.
 * Runs when MONGO_URL and KAFKA_BROKERS are set (CI starts mongo-java-server and a Kafka broker).
 */
const mongoUrl = process.env.MONGO_URL;
/** The real image models and scikit-image's cat photo (`npm run models`; CI installs them). */
const catPhoto = existsSync(join(resolveModelDir(), 'manifest.json')) ? fixturePath('chelsea') : null;
const brokers = process.env.KAFKA_BROKERS;

describe.skipIf(!mongoUrl || !brokers)('separate processes behind the gateway (MongoDB + Kafka)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'topology-'));
  const isolation = basename(dataDir).replace(/[^A-Za-z0-9]/g, '_');
  const mongo = new URL(mongoUrl ?? 'mongodb://127.0.0.1/');
  mongo.pathname = `/topology_${isolation}`;
  const env = {
    DATA_DIR: dataDir,
    MONGO_URL: mongo.toString(),
    KAFKA_BROKERS: brokers,
    KAFKA_NAMESPACE: `topology_${isolation}`,
    ADMIN_API_KEY: ADMIN_KEY,
    SECRETS_KEY: TEST_SECRETS_KEY,
    DEMO_ACCOUNT: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  const running: ServiceProcess[] = [];
  let gateway = '';
  let projectorA: ServiceProcess;
  let dispatcher: ServiceProcess;

  const start = (name: string, entry: string, extra: Record<string, string> = {}) => {
    const proc = startProcess(name, entry, { ...env, ...extra });
    running.push(proc);
    return proc;
  };

  beforeAll(async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const [c1, c2, q1, q2, g] = ports;
    projectorA = start('projectors-a', 'projectors/main.ts');
    start('projectors-b', 'projectors/main.ts');
    start('processors', 'processors/main.ts');
    dispatcher = start('dispatcher', 'webhook-dispatcher/main.ts');
    const apis = [
      start('command-api-1', 'command-api/main.ts', { PORT: String(c1) }),
      start('command-api-2', 'command-api/main.ts', { PORT: String(c2) }),
      start('query-api-1', 'query-api/main.ts', { PORT: String(q1) }),
      start('query-api-2', 'query-api/main.ts', { PORT: String(q2) }),
    ];
    const gw = start('gateway', 'runtime/gateway-main.ts', {
      PORT: String(g),
      GATEWAY_COMMAND_API: `http://127.0.0.1:${c1},http://127.0.0.1:${c2}`,
      GATEWAY_QUERY_API: `http://127.0.0.1:${q1},http://127.0.0.1:${q2}`,
    });
    for (const [proc, port] of [[apis[0], c1], [apis[1], c2], [apis[2], q1], [apis[3], q2], [gw, g]] as const) {
      await waitForHttp(`http://127.0.0.1:${port}/health`, 60_000, proc);
    }
    gateway = `http://127.0.0.1:${g}`;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((proc) => proc.kill()));
    const store = await mongoReadStore(mongo.toString());
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key: string | null, body?: unknown) => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('reads its own writes through the gateway across replicas', async () => {
    const account = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'Topology' });
    expect(account.status).toBe(201);
    const key = account.body.api_key as string;
    for (let i = 0; i < 10; i++) {
      const vote = await call('POST', '/v1/votes', key, { image_id: `t${i}`, value: 1 });
      expect(vote.status).toBe(201);
      const read = await call('GET', `/v1/votes/${vote.body.id}`, key);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      const favourite = await call('POST', '/v1/favourites', key, { image_id: `t${i}` });
      expect(favourite.status).toBe(201);
      const list = await call('GET', `/v1/favourites?image_id=t${i}`, key);
      expect(list.body.map((f: { id: number }) => f.id)).toEqual([favourite.body.id]);
    }
    expect((await call('GET', '/v1/votes?limit=100', key)).body).toHaveLength(10);
    expect((await call('GET', '/v1/votes', null)).status).toBe(403);
  }, 60_000);

  it('survives a projector killed mid-stream: read models equal a full replay', async () => {
    const account = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'Faults' });
    const key = account.body.api_key as string;
    const writes = Array.from({ length: 60 }, (_, i) => call('POST', '/v1/votes', key, { image_id: `k${i}`, value: i % 2 ? 1 : -1 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await projectorA.kill('SIGKILL');
    const results = await Promise.all(writes);
    expect(results.every((r) => r.status === 201)).toBe(true);
    projectorA = start('projectors-a2', 'projectors/main.ts');

    const eventStore = sqliteEventStore(join(dataDir, 'events.db'));
    const live = await mongoReadStore(mongo.toString());
    try {
      const head = await eventStore.headPosition();
      expect(await live.waitForCheckpoints(projections.map((p) => p.name), head, 30_000)).toBe(true);
      const replay = embeddedReadStore();
      for (const projection of projections) {
        await projectToHead(eventStore, replay, projection);
        for (const collection of projection.collections) {
          const expected = await replay.collection(collection).find({}, { sort: { _id: 1 } });
          const actual = await live.collection(collection).find({}, { sort: { _id: 1 } });
          expect(actual, collection).toEqual(expected);
        }
      }
      const listed = await call('GET', '/v1/votes?limit=100', key);
      expect(listed.body.map((v: { id: number }) => v.id).sort()).toEqual(results.map((r) => r.body.id).sort());
    } finally {
      await eventStore.close();
      await live.close();
    }
  }, 90_000);

  // The image pipeline as production runs it: the upload on a command-api replica, its events
  // through Kafka to the processors process (safety review, then the real models), the results
  // appended back and projected into MongoDB, the file in GridFS, read through the query replicas.
  it.runIf(catPhoto !== null)('runs the image pipeline in the processors process: a real cat photo becomes labelled with Cat', async () => {
    const account = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'Images' });
    const key = account.body.api_key as string;
    const photo = readFileSync(catPhoto!);
    const upload = await call('POST', '/v1/images/upload', key, { type: 'base64', image: `data:image/png;base64,${photo.toString('base64')}`, sub_id: 'topology' });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const id = upload.body.id as string;
    expect(upload.body.status, JSON.stringify(upload.body)).toBe('to_be_reviewed');
    // The models load on the processors' first image: allow for that.
    await waitUntil(async () => (await call('GET', `/v1/images/${id}/status`, key)).body.status === 'labelled', 90_000, 'the image to be labelled');
    const analysis = await call('GET', `/v1/images/${id}/analysis`, key);
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(200);
    const labels = (analysis.body[0].labels as { Name: string }[]).map((label) => label.Name);
    expect(labels, JSON.stringify(analysis.body)).toContain('Cat');
    expect(analysis.body[0].moderation_labels).toEqual([]);
    // The image reads back through the gateway (a query replica), and its file is served from GridFS.
    const image = await call('GET', `/v1/images/${id}`, key);
    expect(image.body).toMatchObject({ id, status: 'labelled', species_id: '1' });
    const file = await fetch(image.body.url as string);
    expect(file.status, image.body.url).toBe(200);
    expect(file.headers.get('content-type')).toBe(upload.body.mime_type);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
  }, 150_000);

  it('loses no webhook delivery when the dispatcher is killed mid-stream', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const account = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'Hooks' });
      const key = account.body.api_key as string;
      const hook = await call('POST', '/v1/webhooks', key, { url: receiver.url, description: 'fault test', enabled_events: ['vote.created'] });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const votes: number[] = [];
      for (let i = 0; i < 20; i++) {
        votes.push((await call('POST', '/v1/votes', key, { image_id: `w${i}`, value: 1 })).body.id);
        if (i === 8) await dispatcher.kill('SIGKILL');
      }
      dispatcher = start('dispatcher-2', 'webhook-dispatcher/main.ts');
      const deadline = Date.now() + 60_000;
      const delivered = () => new Set(receiver.received.map((request) => JSON.parse(request.body).id as number));
      while (Date.now() < deadline && votes.some((id) => !delivered().has(id))) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(votes.filter((id) => !delivered().has(id))).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
