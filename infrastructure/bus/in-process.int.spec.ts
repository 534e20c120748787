import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { busContract } from './bus.contract.ts';
import { inProcessBus } from './in-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'bus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let file = '';
beforeEach(() => {
  file = join(dir, `${randomUUID()}.db`);
});

busContract('in-process (SQLite-backed)', async () => inProcessBus(file, { pollIntervalMs: 20 }));

describe('in-process bus retention', () => {
  it('prunes while a consumer group is idle: the file stops growing', async () => {
    const bus = inProcessBus(file, { pollIntervalMs: 20, retentionMs: 0, pruneIntervalMs: 50 });
    let handled = 0;
    const busy = await bus.consume({ group: 'busy', topics: ['events.vote'], handleBatch: async (messages) => void (handled += messages.length) });
    // A group whose topics never see a message (the dispatcher's control group without webhooks).
    const idle = await bus.consume({ group: 'idle', topics: ['events.webhook'], handle: async () => undefined });
    const inspect = new Database(file, { readonly: true });
    const pages = () => (inspect.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    const rows = () => (inspect.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    const value = 'x'.repeat(2000);
    const sizes: number[] = [];
    let sent = 0;
    for (let round = 0; round < 12; round++) {
      await bus.publish(Array.from({ length: 100 }, (_, i) => ({ topic: 'events.vote', key: `k${i}`, value })));
      sent += 100;
      for (let waited = 0; handled < sent && waited < 5_000; waited += 10) await delay(10);
      await delay(120); // a prune turn
      sizes.push(pages());
    }
    expect(handled).toBe(sent);
    // 1,200 messages of 2 KB were published; what is kept is a round or two at most.
    expect(rows()).toBeLessThan(300);
    expect(sizes[11]).toBeLessThanOrEqual(sizes[3] + 5);
    inspect.close();
    await busy.stop();
    await idle.stop();
    await bus.close();
  });
});
