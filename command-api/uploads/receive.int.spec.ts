import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sweepStaleUploads } from './receive.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sweepStaleUploads', () => {
  it('removes upload directories older than the bound and keeps recent ones and anything else', async () => {
    const old = join(dir, 'upload-old');
    const fresh = join(dir, 'upload-fresh');
    const other = join(dir, 'keep-me');
    for (const path of [old, fresh, other]) {
      mkdirSync(path);
      writeFileSync(join(path, 'part-0'), 'bytes');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    utimesSync(other, twoHoursAgo, twoHoursAgo);
    expect(await sweepStaleUploads(dir, 3600_000)).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });

  it('is quiet when the directory does not exist', async () => {
    expect(await sweepStaleUploads(join(dir, 'missing'), 1000)).toBe(0);
  });
});
