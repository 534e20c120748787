import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { projections } from '../projectors/index.ts';
import { rebuildProjection } from '../runtime/rebuild.ts';
import { readyTimeoutOf, startServiceProcess, type ServiceProcess } from './service-process.ts';
import { recordFigures } from './harness-figures.ts';
import { productionProcessEnv } from './service.ts';

/**
 * Crash recovery: the all-in-one process (`node --import tsx runtime/main.ts`) takes votes as fast
 * as a client can send them, is killed with SIGKILL mid-stream, and restarts on the same DATA_DIR.
 * Every acknowledged write (a 201 received) must be there, and every read model must equal a full
 * replay of the log. With E2E_ADAPTERS=production it runs on the production adapters of the
 * environment (read models in MONGO_URL, the bus on KAFKA_BROKERS; a database and namespace of its
 * own), as CI's production stage does.
 */

const ADMIN_KEY = 'crash-admin-key-0123456789';
const WRITE_FOR_MS = 3000;
const WRITERS = 8;

const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
const adapterEnv = productionProcessEnv(dataDir);
/** A restart on Kafka waits for the killed member's consumer-group session to end (see readyTimeoutOf). */
const READY_TIMEOUT_MS = readyTimeoutOf(adapterEnv);
const started: ServiceProcess[] = [];
const startProcess = async () => {
  const service = await startServiceProcess({
    ...adapterEnv,
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN_KEY,
    RATE_LIMIT_PER_MINUTE: '1000000000',
  });
  started.push(service);
  return service;
};

afterAll(async () => {
  for (const service of started) await service.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('crash recovery (SIGKILL during writes)', () => {
  it('keeps every acknowledged write and read models equal to a replay of the log', { timeout: 120_000 + 2 * READY_TIMEOUT_MS }, async () => {
    const first = await startProcess();
    const account = await fetch(`${first.url}/v1/admin/accounts`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash test' }),
    }).then((response) => response.json() as Promise<{ api_key: string }>);

    const acknowledged = new Map<number, { image_id: string; value: number }>();
    let killed = false;
    const writer = async (writerId: number) => {
      for (let i = 0; !killed; i++) {
        const vote = { image_id: `crash-${writerId}-${i}`, value: i % 2 === 0 ? 1 : -1 };
        try {
          const response = await fetch(`${first.url}/v1/votes`, {
            method: 'POST',
            headers: { 'x-api-key': account.api_key, 'content-type': 'application/json' },
            body: JSON.stringify(vote),
          });
          const body = (await response.json()) as { id: number };
          if (response.status === 201) acknowledged.set(body.id, vote);
        } catch {
          return; // the process is gone: the connection failed before an answer
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, id) => writer(id));
    await new Promise((resolve) => setTimeout(resolve, WRITE_FOR_MS));
    const stopped = first.stop('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await stopped;
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThan(50);

    // Restart on the same DATA_DIR: /ready means every projection has caught up with the log.
    const second = await startProcess();
    const ids = [...acknowledged.keys()];
    const missing: number[] = [];
    for (let start = 0; start < ids.length; start += 32) {
      await Promise.all(
        ids.slice(start, start + 32).map(async (id) => {
          const response = await fetch(`${second.url}/v1/votes/${id}`, { headers: { 'x-api-key': account.api_key } });
          const body = (await response.json()) as { image_id: string; value: number };
          const sent = acknowledged.get(id);
          if (response.status !== 200 || body.image_id !== sent?.image_id || body.value !== sent?.value) missing.push(id);
        }),
      );
    }
    expect(missing, `${missing.length} of ${ids.length} acknowledged votes lost`).toEqual([]);
    const listed = await fetch(`${second.url}/v1/votes?limit=1`, { headers: { 'x-api-key': account.api_key } });
    const stored = Number(listed.headers.get('pagination-count'));
    expect(stored).toBeGreaterThanOrEqual(acknowledged.size);

    // Stop it, then replay the whole log into every read model and compare with what was live.
    await second.stop('SIGTERM');
    const adapters = await openAdapters({ ...loadConfig(adapterEnv), dataDir });
    try {
      for (const projection of projections) {
        const report = await rebuildProjection(adapters.eventStore, adapters.readStore, projection);
        expect(report.identical, `${projection.name}: ${JSON.stringify(report.collections)}`).toBe(true);
        expect(report.position).toBe(await adapters.eventStore.headPosition());
      }
    } finally {
      await adapters.close();
    }
    const production = process.env.E2E_ADAPTERS === 'production';
    recordFigures(
      production ? 'crash-recovery-production' : 'crash-recovery',
      `crash recovery${production ? ' (production adapters)' : ''}: ${acknowledged.size} acknowledged votes in ${WRITE_FOR_MS} ms before SIGKILL, all present after restart ` +
        `(${stored - acknowledged.size} more appended but unacknowledged); ${projections.length} read models equal to a full replay`,
    );
  });
});
