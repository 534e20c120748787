import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledService } from './compiled-build.ts';
import { freePort, startServiceProcess, type ServiceProcess } from './service-process.ts';

/**
 * The README's five-minute tour, run as written: its ```sh blocks, in order, in one bash, against
 * the all-in-one started as `npm start` starts it: compiled (npm run build) and run by plain node, with
 * the real image models and the demo account. The test sets
 * only what the README tells the reader to set: KEY (the printed demo key), API (the service's
 * port, since 8080 may be taken here) and HOOK_PORT (a free port for the webhook receiver). The
 * service's waits are raised because a loaded machine can take longer than the defaults for the
 * models' first load; every step is still bounded.
 */
const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const MODELS_DIR = process.env.MODELS_DIR ?? join(import.meta.dirname, '..', '.models');
const modelsInstalled = existsSync(join(MODELS_DIR, 'manifest.json'));
const TOUR_TIMEOUT_MS = 300_000;

/** The ```sh blocks of a Markdown text, in order. */
export const shellBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);

const runBash = (script: string, env: Record<string, string>, timeoutMs: number) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: join(import.meta.dirname, '..'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // The whole process group (bash, curl, the receiver) goes when the tour outlives its bound.
    const timer = setTimeout(() => {
      output += `\n[tour killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

describe('the README tour', () => {
  it('has the blocks the tour needs, each a bash snippet', () => {
    const blocks = shellBlocks(README);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const tour = blocks.join('\n');
    for (const step of ['/images/upload-sync', '/images/search', '/votes', '/favourites', '/webhooks', '/pets', '/body-condition-score']) {
      expect(tour, step).toContain(step);
    }
  });

  describe.skipIf(!modelsInstalled && process.env.CI !== 'true')('run as written against npm start', () => {
    let service: ServiceProcess;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'tour-'));
      service = await startServiceProcess(
        {
          DATA_DIR: dataDir,
          DEMO_ACCOUNT: 'true',
          LOG_LEVEL: 'warn',
          MALLOC_ARENA_MAX: '2',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          UPLOAD_SYNC_TIMEOUT_MS: '150000',
          ANALYSIS_WAIT_MS: '150000',
          ...(process.env.MODELS_DIR ? { MODELS_DIR: process.env.MODELS_DIR } : {}),
        },
        { readyTimeoutMs: 120_000, compiledEntry: join(compiledService(), 'runtime', 'main.js') },
      );
    }, 330_000);

    afterAll(async () => {
      await service?.stop('SIGTERM');
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it(
      'uploads and labels a photo, searches, votes, favourites, receives a signed webhook and scores a pet',
      async () => {
        expect(modelsInstalled, `the image models are not installed in ${MODELS_DIR} (npm run models)`).toBe(true);
        const key = /x-api-key: (\S+)/.exec(service.output())?.[1];
        expect(key, service.output()).toBeTruthy();
        const script = ['set -euo pipefail', ...shellBlocks(README)].join('\n');
        const { code, output } = await runBash(script, { KEY: key!, API: `${service.url}/v1`, HOOK_PORT: String(await freePort()) }, TOUR_TIMEOUT_MS - 10_000);
        expect(code, output).toBe(0);
        // 1: the photo is analysed and labelled a cat; its analysis answers the labels too.
        expect(output).toMatch(/^labelled$/m);
        expect(output).toMatch(/'Cat'/);
        expect(output).toMatch(/"labels":\[\{"Name":"Cat"/);
        // 2: search finds it; the breed search answers in German.
        expect(output).toMatch(/cat,/);
        expect(output).toMatch(/Siam/);
        // 3: vote and favourite created, and the favourite embeds the image's url.
        expect(output).toMatch(/"value":1,/);
        expect(output).toMatch(/"is_deleted":false/);
        expect(output).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/images\/files\/\S+$/m);
        // 4: the receiver got vote.created with a valid signature.
        expect(output).toMatch(/^vote\.created signature ok \{.*"event_type":"vote\.created"/m);
        expect(output).not.toContain('BAD SIGNATURE');
        // 5: the horse's body condition is scored from its silhouette.
        expect(output).toMatch(/"score":[1-9],"reasons":"from the side/);
        expect(output, output).not.toMatch(/"statusCode":\s*[45]\d\d/);
      },
      TOUR_TIMEOUT_MS,
    );

    it("serves the operations console's files from the sources' tree (the compiled copy holds code only)", async () => {
      for (const file of ['', '/console.js', '/console.css']) {
        const response = await fetch(`${service.url}/v1/admin/console${file}`);
        expect(response.status, file).toBe(200);
        expect((await response.text()).length, file).toBeGreaterThan(100);
      }
    });
  });
});
