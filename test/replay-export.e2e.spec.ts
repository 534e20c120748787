import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { projections, projectionByName } from '../projectors/index.ts';
import { projectToHead } from '../projectors/runner.ts';
import { exportLines, importLines, ImportError } from '../runtime/event-transfer.ts';
import { verifyInScratch } from '../runtime/verify.ts';
import { mongoClient } from '../infrastructure/mongo-client.ts';
import { ADMIN_KEY, startTestService, TEST_SECRETS_KEY, type TestService } from './service.ts';

/**
 * Verified replays (into a scratch store, the live read models untouched) and the NDJSON export
 * round trip: a log exported from a running service and imported into an empty store projects to
 * the same read models.
 */
const run = promisify(execFile);
const production = process.env.E2E_ADAPTERS === 'production';
let service: TestService;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-'));
  dirs.push(dir);
  return dir;
};

const collect = async (lines: AsyncIterable<string>): Promise<string[]> => {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
};

async function* iterate(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

const documents = async (store: ReadStore, collection: string) =>
  (await store.collection(collection).find({}, {})).sort((a, b) => a._id.localeCompare(b._id));

/** Imports the lines into a new embedded event store and projects every read model from it. */
const replayInto = async (lines: string[], allowRedacted = false) => {
  const dir = tempDir();
  const eventStore = sqliteEventStore(join(dir, 'events.db'));
  const readStore = embeddedReadStore();
  const report = await importLines(eventStore, iterate(lines), { allowRedacted });
  for (const projection of projections) await projectToHead(eventStore, readStore, projection);
  return { eventStore, readStore, report };
};

beforeAll(async () => {
  // Reference data makes the log realistic; on the production adapters (a Mongo-wire test server) it is left out for time.
  service = await startTestService({ referenceDataImport: !production, webhookAllowPrivateTargets: true });
  const owner = await service.createAccount({ name: 'Exported' });
  const second = await service.createAccount({ name: 'Second' });
  for (let i = 0; i < 5; i++) {
    expect((await service.request('POST', '/v1/votes', { key: owner.api_key, body: { image_id: `img${i}`, value: i % 2 === 0 ? 1 : -1, sub_id: 's' } })).status).toBe(201);
  }
  const favourite = await service.request('POST', '/v1/favourites', { key: second.api_key, body: { image_id: 'fav1', sub_id: 'a' } });
  expect(favourite.status).toBe(201);
  expect((await service.request('DELETE', `/v1/favourites/${favourite.body.id}`, { key: second.api_key })).status).toBe(200);
  expect((await service.request('POST', '/v1/webhooks', { key: owner.api_key, body: { url: 'http://127.0.0.1:9/x', enabled_events: ['vote.created'] } })).status).toBe(201);
  await service.adapters.readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, await service.adapters.eventStore.headPosition(), 30_000);
}, 180_000);

afterAll(async () => {
  await service?.dispose();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('export and import', () => {
  it('a full export imported into an empty store reproduces every read model', async () => {
    const lines = await collect(exportLines(service.adapters.eventStore, { includeSecrets: true }));
    expect(lines.length).toBeGreaterThan(production ? 10 : 100); // reference data included (embedded)
    const replay = await replayInto(lines);
    expect(replay.report).toMatchObject({ events: lines.length, redacted: false });
    expect(await replay.eventStore.headPosition()).toBe(await service.adapters.eventStore.headPosition());
    for (const projection of projections) {
      for (const collection of projection.collections) {
        const live = await documents(service.adapters.readStore, collection);
        expect(await documents(replay.readStore, collection), collection).toEqual(live);
      }
    }
    // The re-export is the same file, line for line.
    expect(await collect(exportLines(replay.eventStore, { includeSecrets: true }))).toEqual(lines);
    await replay.eventStore.close();
  }, 120_000);

  it("an auditor's (redacted) export imports only when told to, and reproduces every read model but the key index", async () => {
    const lines = await collect(exportLines(service.adapters.eventStore));
    expect(lines.some((line) => line.includes('"key_hash":"[redacted]"'))).toBe(true);
    await expect(replayInto(lines)).rejects.toThrow(ImportError);
    const replay = await replayInto(lines, true);
    expect(replay.report.redacted).toBe(true);
    for (const projection of projections) {
      for (const collection of projection.collections.filter((name) => name !== 'api_keys')) {
        expect(await documents(replay.readStore, collection), collection).toEqual(await documents(service.adapters.readStore, collection));
      }
    }
    await replay.eventStore.close();
  }, 120_000);

  it('refuses a store that has events, and a stream with a gap', async () => {
    const lines = await collect(exportLines(service.adapters.eventStore, { includeSecrets: true }));
    await expect(importLines(service.adapters.eventStore, iterate(lines))).rejects.toThrow(/not empty/);
    const gap = lines.filter((line) => !(line.includes('"revision":"0"') && line.includes('"stream":"account-')));
    await expect(replayInto(gap)).rejects.toThrow(/revision/);
  });
});

describe('verified replay', () => {
  it('rebuilds each projection into a scratch store and finds it identical, leaving the live one alone', async () => {
    for (const projection of projections) {
      const report = await verifyInScratch(service.config, service.adapters.eventStore, service.adapters.readStore, projection);
      expect(report.identical, `${projection.name}: ${JSON.stringify(report.collections)}`).toBe(true);
    }
    // On MongoDB the scratch databases are dropped whole afterwards, not left behind empty.
    if (service.config.mongoUrl) {
      const client = mongoClient(service.config.mongoUrl);
      try {
        const { databases } = await client.db('admin').admin().listDatabases();
        const live = new URL(service.config.mongoUrl).pathname.slice(1);
        expect(databases.map((database) => database.name).filter((name) => name.startsWith(`${live}_verify_`))).toEqual([]);
      } finally {
        await client.close();
      }
    }
  }, 120_000);

  it('reports a live document that a replay does not produce', async () => {
    const votes = service.adapters.readStore.collection('votes');
    const [vote] = await votes.find({}, { limit: 1 });
    await votes.upsert({ ...vote, value: 42 }, (await service.adapters.eventStore.headPosition()) + 1_000_000n);
    const report = await verifyInScratch(service.config, service.adapters.eventStore, service.adapters.readStore, projectionByName('votes')!);
    expect(report.identical).toBe(false);
    expect(report.collections.find((entry) => entry.name === 'votes')?.differing).toEqual([vote._id]);
    expect((await votes.get(vote._id))?.value).toBe(42);
  }, 60_000);

  it('runs as a background operation while the service serves, with progress, and reports the difference', async () => {
    const started = await service.request('POST', '/v1/admin/operations/verify', { key: ADMIN_KEY, body: { projection: 'all' } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'running', projection: 'all', progress: { done: 0, total: projections.length } });
    expect((await service.request('POST', '/v1/admin/operations/verify', { key: ADMIN_KEY, body: { projection: 'votes' } })).status).toBe(409);
    // The service keeps answering meanwhile.
    expect((await service.request('GET', '/v1/votes', { key: ADMIN_KEY })).status).toBe(403);
    let operation = started.body;
    const percents: number[] = [];
    while (operation.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      operation = (await service.request('GET', `/v1/admin/operations/${started.body.id}`, { key: ADMIN_KEY })).body;
      percents.push(operation.progress.percent);
    }
    expect(operation.status).toBe('failed');
    expect(operation.progress).toMatchObject({ percent: 100, done: projections.length, current: null });
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    const failing = operation.results.filter((result: any) => !result.identical);
    expect(failing.map((result: any) => result.projection)).toEqual(['votes']);
    expect(failing[0].collections[0]).toMatchObject({ name: 'votes', differing_count: 1 });
    expect((await service.request('POST', '/v1/admin/operations/verify', { key: ADMIN_KEY, body: { projection: 'nope' } })).status).toBe(404);
    expect((await service.request('GET', '/v1/admin/operations/unknown', { key: ADMIN_KEY })).status).toBe(404);
  }, 120_000);

  it('npm run rebuild -- <projection> --verify exits non-zero on a difference and zero without one (on MongoDB while the service runs)', async () => {
    // The embedded read store belongs to one process: stop the service there. On MongoDB it keeps running.
    if (service.config.mongoUrl === undefined) await service.stop();
    const env = {
      ...process.env,
      DATA_DIR: service.dataDir,
      LOG_LEVEL: 'silent',
      MONGO_URL: service.config.mongoUrl ?? '',
      KAFKA_BROKERS: service.config.kafkaBrokers?.join(',') ?? '',
      KAFKA_NAMESPACE: service.config.kafkaNamespace ?? '',
      // A process on shared adapters refuses to start without the deployment's key (config.ts).
      SECRETS_KEY: TEST_SECRETS_KEY,
    };
    const failing = await run(process.execPath, ['--import', 'tsx', 'runtime/rebuild-cli.ts', 'votes', '--verify'], { env }).then(
      () => 0,
      (error: { code: number; stdout: string }) => {
        expect(error.stdout).toContain('verify FAILED');
        return error.code;
      },
    );
    expect(failing).toBe(1);
    const passing = await run(process.execPath, ['--import', 'tsx', 'runtime/rebuild-cli.ts', 'favourites', '--verify'], { env });
    expect(passing.stdout).toContain('verify passed');
  }, 120_000);
});
