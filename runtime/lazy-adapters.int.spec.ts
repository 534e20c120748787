import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The production adapters' clients load only in processes configured to use them
 * (docs/architecture.md): importing the all-in-one — every route, operation and runtime module of
 * the embedded default — loads none of them. Checked in a fresh process, by the packages in its
 * module cache.
 */
const PRODUCTION_CLIENTS = ['mongodb', 'kafkajs', '@eventstore/db-client', 'nodemailer'];

describe('production adapters load lazily', () => {
  it('the all-in-one module graph loads no production client', () => {
    const script = `
      await import('./runtime/all-in-one.ts');
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(process.cwd() + '/').cache);
      const names = ${JSON.stringify(PRODUCTION_CLIENTS)};
      console.log(JSON.stringify(names.filter((name) => loaded.some((path) => path.includes('/node_modules/' + name + '/')))));
      process.exit(0);`;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(output.trim().split('\n').pop() as string)).toEqual([]);
  }, 90_000);
});
