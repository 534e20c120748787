import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { REPO_ROOT } from '../harness/children.ts';
import type { Context } from '../harness/context.ts';
import { figure } from '../harness/figure.ts';
import { growData, grownSize, type GrownAccount, type GrownData, type GrownSize } from '../harness/grown-data.ts';
import { loadProblems, type LoadResult } from '../harness/load.ts';
import { harmonicRate, runKind, runMix, settle, type MixKind, type MixRequest } from '../harness/mix.ts';
import { memoryOf, RSS_BOUND_MIB } from '../harness/rss.ts';
import { adapterEnvFor, BENCH_SECRETS_KEY, startService, type RunningService } from '../harness/service.ts';
import type { BenchItem, Figure } from '../harness/types.ts';

const ITEM = '8 mixed';
/** The size of the "empty" deployment the list reads are compared with: the same data, a few of each. */
const EMPTY: GrownSize = { accounts: 2, votes: 20, favourites: 20, images: 20 };
/**
 * How long a grown service may take to start (/ready waits until its projections have caught up
 * with the pre-load) and then to settle (the relay, the bus and the dispatcher catching up).
 */
const GROWN_READY_S = Number(process.env.BENCH_GROWN_READY_TIMEOUT_S ?? 3600);
const P99_BOUND_MS = 50;
/** Connections of every run, a kind alone and the mix (as items 1 and 2). */
const CONNECTIONS = 16;

/**
 * The service, grown with `size` through an import of events (bench/harness/grown-data.ts) and
 * started on it, settled (projections caught up). Its processors do not run: the image analyses
 * (≈ 1 CPU-second per upload, item 5) belong to the processors' own process in a deployment;
 * measured here is the API — the upload itself, its blobs and its event.
 */
const grownService = async (ctx: Context, suffix: string, size: GrownSize): Promise<{ service: RunningService; grown: GrownData; settledS: number | null }> => {
  const runId = `${ctx.runId}_${suffix}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-grown-'));
  try {
    const grown = await growData(size, { ...adapterEnvFor(ctx.mode, runId), DATA_DIR: dataDir, SECRETS_KEY: BENCH_SECRETS_KEY }, ctx.log);
    const service = await startService(ctx.mode, runId, { dataDir, readyTimeoutS: GROWN_READY_S, env: { RUN_PROCESSORS: 'false', IMAGE_UPLOAD_QUOTA: '10000000' } });
    const settledS = await settle(service.pid, { timeoutS: GROWN_READY_S });
    return { service, grown, settledS };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
};

/** A small real photo (test fixture, 451×300) as a JPEG, base64: what the uploads of the mix send. */
const uploadPhoto = async (): Promise<string> => {
  const png = readFileSync(join(REPO_ROOT, '.models', 'fixtures', 'chelsea.png'));
  return (await sharp(png).jpeg({ quality: 85 }).toBuffer()).toString('base64');
};

/**
 * The kinds of the mix, 60 % reads and 40 % writes, each spread over the grown accounts' keys
 * (a new key for every request, round-robin) and their own images.
 */
const mixKinds = (accounts: GrownAccount[], photo: string): MixKind[] => {
  let turn = 0;
  const anyAccount = () => accounts[turn++ % accounts.length];
  const ownImage = (account: GrownAccount) => account.image_ids[Math.floor(Math.random() * account.image_ids.length)];
  let unique = 0;
  const get = (path: string, account = anyAccount()): MixRequest => ({ method: 'GET', path, headers: { 'x-api-key': account.api_key } });
  const post = (path: string, account: GrownAccount, body: unknown): MixRequest => ({
    method: 'POST',
    path,
    headers: { 'x-api-key': account.api_key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return [
    { name: 'GET /v1/breeds?limit=10', share: 0.15, next: () => get('/v1/breeds?limit=10') },
    { name: 'GET /v1/facts?limit=5', share: 0.08, next: () => get('/v1/facts?limit=5') },
    { name: 'GET /v1/votes?limit=10 (own)', share: 0.1, next: () => get('/v1/votes?limit=10') },
    { name: 'GET /v1/favourites?limit=10 (own)', share: 0.1, next: () => get('/v1/favourites?limit=10') },
    { name: 'GET /v1/images/search?limit=10', share: 0.1, next: () => get('/v1/images/search?limit=10') },
    {
      name: 'GET /v1/images/{id} (own)',
      share: 0.07,
      next: () => {
        const account = anyAccount();
        return get(`/v1/images/${ownImage(account)}`, account);
      },
    },
    {
      name: 'POST /v1/votes',
      share: 0.25,
      next: () => {
        const account = anyAccount();
        return post('/v1/votes', account, { image_id: ownImage(account), sub_id: 'mix', value: 1 });
      },
    },
    {
      name: 'POST /v1/favourites',
      share: 0.13,
      next: () => {
        const account = anyAccount();
        return post('/v1/favourites', account, { image_id: ownImage(account), sub_id: `mix-${process.pid}-${unique++}` });
      },
    },
    {
      name: 'POST /v1/images/upload (451×300 JPEG)',
      share: 0.02,
      next: () => post('/v1/images/upload', anyAccount(), { type: 'base64', image: photo, sub_id: 'mix' }),
    },
  ];
};

/** The list reads compared between empty and grown data. */
const LIST_READS = ['GET /v1/votes?limit=10 (own)', 'GET /v1/favourites?limit=10 (own)', 'GET /v1/images/search?limit=10'];

const alone = async (ctx: Context, service: RunningService, kinds: MixKind[]): Promise<Map<string, LoadResult>> => {
  const results = new Map<string, LoadResult>();
  for (const kind of kinds) {
    if (ctx.warmupS > 0) await runKind(service.url, kind, { durationS: ctx.warmupS, connections: CONNECTIONS });
    results.set(kind.name, await runKind(service.url, kind, { durationS: ctx.durationS, connections: CONNECTIONS }));
    await settle(service.pid, { timeoutS: 60 });
  }
  return results;
};

/**
 * 8. A mix close to an API's real traffic on grown data: 60 % reads (breeds, facts, own votes and
 * favourites lists, image search, an own image by id) and 40 % writes (votes, favourites,
 * uploads) from many keys, on a service pre-loaded through an import of events with 1,000,000
 * votes over 1,000 accounts, 100,000 favourites and 100,000 images (BENCH_GROWN_SCALE scales it).
 *
 * Each kind is first measured alone on the grown data (as fast as answered, on its own
 * connections); then all at once, each offered its share of the harmonic combination of those
 * rates — the rate the mix would reach if mixing cost nothing. Figures: the mix's total against
 * that combination; each kind's rate in the mix against its share of it (a kind starved by the
 * others falls short; a kind's rate against itself alone is its share of the service and is
 * reported in the note); p99 per kind in the mix; the list reads alone on grown data against the
 * same reads on an "empty" deployment (the same import with 2 accounts and 20 of each); peak RSS
 * of the service and of the import.
 */
export const item: BenchItem = {
  name: ITEM,
  target: `mix ≥ 0.7× the harmonic combination of its kinds alone; each kind ≥ 0.5× its share of it; p99 ≤ ${P99_BOUND_MS} ms per kind; list reads on grown data ≥ 0.5× on empty; RSS ≤ ${RSS_BOUND_MIB} MiB per process`,
  async run(ctx) {
    const size = grownSize();
    const photo = await uploadPhoto();
    const figures: Figure[] = [];

    ctx.log(`${ITEM}: the empty deployment (${JSON.stringify(EMPTY)})`);
    const empty = await grownService(ctx, 'mixed_empty', EMPTY);
    let emptyLists: Map<string, LoadResult>;
    try {
      emptyLists = await alone(ctx, empty.service, mixKinds(empty.grown.accounts, photo).filter((kind) => LIST_READS.includes(kind.name)));
    } finally {
      await empty.service.stop();
    }

    ctx.log(`${ITEM}: growing the data (${JSON.stringify(size)})`);
    const started = Date.now();
    const { service, grown, settledS } = await grownService(ctx, 'mixed_grown', size);
    const readyS = (Date.now() - started) / 1000;
    try {
      figures.push(
        figure({
          item: ITEM,
          metric: 'pre-load: events imported, then projected by the starting service',
          value: grown.events,
          unit: 'events',
          note: `${size.accounts.toLocaleString('en-US')} accounts, ${size.votes.toLocaleString('en-US')} votes, ${size.favourites.toLocaleString('en-US')} favourites, ${size.images.toLocaleString('en-US')} images; import ${grown.importS.toFixed(0)} s, service settled ${readyS.toFixed(0)} s after the import began${settledS === null ? ' (never quiet: measured anyway)' : ''}`,
        }),
        figure({ item: '7 memory', metric: 'peak RSS of the import (npm run import-events) under 8 mixed', value: grown.importPeakRssMiB, unit: 'MiB', targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }] }),
      );
      const kinds = mixKinds(grown.accounts, photo);
      ctx.log(`${ITEM}: each kind alone`);
      const single = await alone(ctx, service, kinds);
      const rates = new Map([...single].map(([name, result]) => [name, result.okPerSecond]));
      const combined = harmonicRate(kinds, rates);

      ctx.log(`${ITEM}: the mix`);
      if (ctx.warmupS > 0) await runMix(service.url, kinds, { durationS: ctx.warmupS, connections: CONNECTIONS });
      const mix = await runMix(service.url, kinds, { durationS: ctx.durationS, connections: CONNECTIONS });
      const mixed = mix.byKind;
      const total = mix.okPerSecond;
      figures.push(
        figure({
          item: ITEM,
          metric: 'the mix, all kinds at once',
          value: total,
          unit: 'req/s',
          baseline: { label: 'harmonic combination of the kinds alone', value: combined },
          targets: [{ on: 'ratio', op: '>=', threshold: 0.7 }],
          note: [
            `${kinds.length} kinds in fixed proportions on ${CONNECTIONS} connections, ${grown.accounts.length} keys`,
            mix.errors ? `${mix.errors} errors` : '',
            mix.timeouts ? `${mix.timeouts} timeouts` : '',
          ]
            .filter(Boolean)
            .join('; '),
        }),
      );
      for (const kind of kinds) {
        const inMix = mixed.get(kind.name)!;
        const byItself = single.get(kind.name)!;
        figures.push(
          figure({
            item: ITEM,
            metric: `${kind.name} in the mix (${Math.round(kind.share * 100)} %)`,
            value: inMix.okPerSecond,
            unit: 'req/s',
            baseline: { label: 'its share of the combination', value: kind.share * combined },
            targets: [{ on: 'ratio', op: '>=', threshold: 0.5 }],
            note: [
              `alone ${byItself.okPerSecond.toFixed(0)}/s (p99 ${byItself.latencyP99} ms): ${(inMix.okPerSecond / Math.max(1e-9, byItself.okPerSecond)).toFixed(2)}× of itself alone`,
              inMix.non2xx ? `${inMix.non2xx} non-2xx` : '',
              loadProblems(byItself) ? `alone: ${loadProblems(byItself)}` : '',
            ]
              .filter(Boolean)
              .join('; '),
          }),
          figure({
            item: ITEM,
            metric: `${kind.name} p99 in the mix`,
            value: inMix.latencyP99,
            unit: 'ms',
            targets: [{ on: 'value', op: '<=', threshold: P99_BOUND_MS }],
            note: `p50 ${inMix.latencyP50} ms`,
          }),
        );
      }
      for (const name of LIST_READS) {
        const before = emptyLists.get(name)!;
        const after = single.get(name)!;
        figures.push(
          figure({
            item: ITEM,
            metric: `${name} alone, grown data`,
            value: after.okPerSecond,
            unit: 'req/s',
            baseline: { label: 'the same on empty data', value: before.okPerSecond },
            targets: [{ on: 'ratio', op: '>=', threshold: 0.5 }],
            note: `p99 ${after.latencyP99} ms vs ${before.latencyP99} ms`,
          }),
        );
      }
    } finally {
      // VmHWM: the peak since the process started, projecting the pre-load included.
      figures.push(
        figure({
          item: '7 memory',
          metric: 'peak RSS (VmHWM) of the grown service under 8 mixed, start-up included',
          value: memoryOf(service.pid)?.hwmMiB ?? null,
          unit: 'MiB',
          targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }],
        }),
      );
      await service.stop();
    }
    return figures;
  },
};
