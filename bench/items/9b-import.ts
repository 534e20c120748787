import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { resolveModelDir } from '../../infrastructure/vision/index.ts';
import { datasetPresent, DEFAULT_DATASET } from '../../scripts/eval/oxford-pets.ts';
import { oxfordPhotos, writeOxfordManifest } from '../../scripts/eval/oxford-manifest.ts';
import { REPO_ROOT } from '../harness/children.ts';
import { figure } from '../harness/figure.ts';
import { requestJson } from '../harness/http.ts';
import { RSS_BOUND_MIB, sampleRss } from '../harness/rss.ts';
import { adapterEnvFor, BENCH_SECRETS_KEY, startService } from '../harness/service.ts';
import type { BenchItem } from '../harness/types.ts';

/** Photos measured on each side (one more goes first on each, to load the models: not measured). */
const PHOTOS = Number(process.env.BENCH_IMPORT_PHOTOS ?? 24);
/** The import's photos in flight (its default). */
const CONCURRENCY = 2;

/**
 * The photo import's throughput against upload-sync of the same photos one by one, in the same
 * run: `npm run import:images` (the CLI, a child process, on a fresh data dir of its own: the
 * reference data imported, the projections run in it) on PHOTOS + 1 photos of the Oxford-IIIT Pet
 * sample with their manifest, photos/s between its first and its last photo line (the first one
 * carries the models' loading); and on an all-in-one of its own, the same photos through
 * POST /images/upload-sync one after the other after one warm-up upload. Both run the whole
 * pipeline (checks, sizes, safety, detection, classification, labels). The import's peak RSS is
 * its own line (the 512 MiB bound; the import holds at most `concurrency` photos and the content
 * hashes of the run, so the bound does not grow with the folder).
 */
export const item: BenchItem = {
  name: '9b import',
  target: 'npm run import:images ≥ 1× upload-sync one by one (same photos, same run: the import approaches the pipeline’s own rate); peak RSS ≤ 512 MiB',
  async available() {
    if (!existsSync(join(resolveModelDir(), 'manifest.json'))) return 'the image models are not installed (npm run models)';
    if (!datasetPresent()) return 'the Oxford-IIIT Pet sample is not in ../shared/datasets/oxford-pets-sample';
    return null;
  },
  async run(ctx) {
    const all = oxfordPhotos(DEFAULT_DATASET);
    const step = all.length / (PHOTOS + 1);
    const photos = Array.from({ length: PHOTOS + 1 }, (_, i) => all[Math.floor(i * step)]);

    // upload-sync, one photo at a time
    const service = await startService(ctx.mode, `${ctx.runId}_import_sync`);
    let syncPerSecond: number;
    try {
      const account = await requestJson(`${service.url}/v1/admin/accounts`, { method: 'POST', key: service.adminKey, body: { name: 'bench import' } });
      const { api_key: apiKey } = account.body as { api_key: string };
      const uploadSync = async (name: string) => {
        const image = readFileSync(join(DEFAULT_DATASET, 'images', `${name}.jpg`)).toString('base64');
        const answer = await requestJson(`${service.url}/v1/images/upload-sync`, { method: 'POST', key: apiKey, body: { type: 'base64', image, auto_crop: false } });
        if (answer.status !== 201) throw new Error(`upload-sync answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      };
      await uploadSync(photos[0].name);
      const started = performance.now();
      for (const photo of photos.slice(1)) await uploadSync(photo.name);
      syncPerSecond = PHOTOS / ((performance.now() - started) / 1000);
    } finally {
      await service.stop();
    }

    // the import, through its CLI
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-import-'));
    try {
      const manifest = writeOxfordManifest(DEFAULT_DATASET, join(dataDir, 'manifest.csv'), photos);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'runtime/import-images-cli.ts', DEFAULT_DATASET, '--manifest', manifest, '--json', '--concurrency', String(CONCURRENCY), '--run-projections'],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, ...adapterEnvFor(ctx.mode, `${ctx.runId}_import`), DATA_DIR: join(dataDir, 'data'), SECRETS_KEY: BENCH_SECRETS_KEY, LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2' },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const rss = sampleRss(child.pid!);
      const photoLines: number[] = [];
      const summaries: { imported: number; skipped: Record<string, number> }[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        const parsed = JSON.parse(line) as { type: string } & Partial<(typeof summaries)[number]>;
        if (parsed.type === 'photo') photoLines.push(performance.now());
        if (parsed.type === 'summary') summaries.push({ imported: parsed.imported ?? 0, skipped: parsed.skipped ?? {} });
      }
      const summary = summaries[0];
      const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
      const peak = rss.stop();
      if (code !== 0 || !summary) throw new Error(`npm run import:images exited with ${code}`);
      const importPerSecond = photoLines.length > 1 ? (photoLines.length - 1) / ((photoLines.at(-1)! - photoLines[0]) / 1000) : null;
      const skipped = Object.entries(summary.skipped).filter(([, count]) => count > 0).map(([reason, count]) => `${reason} ${count}`).join(', ');
      return [
        figure({
          item: this.name,
          metric: `npm run import:images (${PHOTOS} Oxford-IIIT Pet photos after the first, --concurrency ${CONCURRENCY})`,
          value: importPerSecond,
          unit: 'photos/s',
          baseline: { label: 'POST /images/upload-sync one by one, same photos', value: syncPerSecond },
          targets: [{ on: 'ratio', op: '>=', threshold: 1 }],
          note: `imported ${summary.imported}${skipped ? `, skipped ${skipped}` : ''}; whole pipeline on both sides`,
        }),
        figure({ item: '7 memory', metric: `peak RSS of npm run import:images (${PHOTOS + 1} photos, models loaded)`, value: peak, unit: 'MiB', targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }] }),
      ];
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
