import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';
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
