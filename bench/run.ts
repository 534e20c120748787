import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT } from './harness/children.ts';
import { createContext, type Context } from './harness/context.ts';
import { figure, notAvailable } from './harness/figure.ts';
import { consoleTable, machine, writeReport } from './harness/report.ts';
import { memoryOf, RSS_BOUND_MIB, sampleRss } from './harness/rss.ts';
import { startService, type AdapterMode } from './harness/service.ts';
import type { BenchItem, Figure } from './harness/types.ts';

/**
 * `npm run bench`: starts the all-in-one service in a child process, runs every item in
 * bench/items/ against it next to the baseline measured in the same run, and writes
 * bench/results/latest.{json,md} (and latest-production.* when MONGO_URL, KAFKA_BROKERS or
 * EVENTSTORE_URL are set). Measurement only: it never fails on a missed target.
 *
 * BENCH_DURATION_S   seconds per measured run (default 10)
 * BENCH_WARMUP_S     warm-up seconds before each run (default 2)
 * BENCH_ITEMS        only the items whose file name starts with one of these (`1,3`)
 * BENCH_ADAPTERS     embedded | production | both (default: embedded, plus production when its URLs are set)
 * BENCH_CPU_PROF=1   the service writes a CPU profile to bench/results/profiles
 * BENCH_WEBHOOK_BACKLOG  votes in item 4's backlog (default 150,000 embedded, 10,000 on production adapters; 0: the votes of BENCH_DURATION_S)
 * BENCH_READY_TIMEOUT_S  how long a starting service may take to answer /ready (default 600)
 * BENCH_GROWN_SCALE      item 8's grown data, a fraction of 1,000 accounts, 1,000,000 votes, 100,000
 *                        favourites and 100,000 images (default 1); BENCH_GROWN_ACCOUNTS, _VOTES,
 *                        _FAVOURITES, _IMAGES set one count each
 * BENCH_GROWN_READY_TIMEOUT_S  how long item 8's grown service may take to project its pre-load (default 3600)
 */
const RESULTS = join(REPO_ROOT, 'bench', 'results');
const ITEMS = join(REPO_ROOT, 'bench', 'items');

const seconds = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of seconds`);
  return value;
};

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const loadItems = async (): Promise<{ file: string; item: BenchItem }[]> => {
  const only = process.env.BENCH_ITEMS?.split(',').map((prefix) => prefix.trim()).filter(Boolean);
  const files = readdirSync(ITEMS)
    .filter((file) => file.endsWith('.ts') && !file.includes('.spec.'))
    .filter((file) => !only || only.some((prefix) => file.startsWith(prefix)))
    .sort();
  const loaded = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(ITEMS, file)).href)) as { item?: BenchItem };
    if (!module.item) throw new Error(`bench/items/${file} exports no 'item'`);
    loaded.push({ file, item: module.item });
  }
  return loaded;
};

const runItem = async (ctx: Context, item: BenchItem): Promise<Figure[]> => {
  const reason = (await item.available?.(ctx)) ?? null;
  if (reason) {
    log(`${item.name}: ${reason}`);
    return [notAvailable(item.name, reason)];
  }
  log(`${item.name}: running (${item.target})`);
  const sampler = sampleRss(ctx.service.pid);
  let figures: Figure[];
  try {
    figures = await item.run(ctx);
  } catch (error) {
    log(`${item.name} failed: ${(error as Error).stack ?? String(error)}`);
    figures = [{ ...notAvailable(item.name, `failed: ${(error as Error).message}`), metric: 'failed' }];
  }
  const peak = sampler.stop();
  figures.push(
    figure({
      item: '7 memory',
      metric: `peak RSS under ${item.name}`,
      value: peak,
      unit: 'MiB',
      targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }],
    }),
  );
  for (const line of figures) log(`  ${line.metric}: ${line.value ?? '—'} ${line.unit} ${line.status}`);
  return figures;
};

const runMode = async (mode: AdapterMode, items: { item: BenchItem }[], settings: { durationS: number; warmupS: number }) => {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const startedAt = new Date().toISOString();
  log(`starting the service (${mode} adapters)`);
  const service = await startService(mode, runId);
  const figures: Figure[] = [];
  let adapters: Record<string, string> = {};
  try {
    const ready = await fetch(`${service.url}/ready`).then((response) => response.json() as Promise<{ adapters?: Record<string, string> }>);
    adapters = ready.adapters ?? {};
    const ctx = await createContext(service, { mode, runId, ...settings, log });
    for (const { item } of items) figures.push(...(await runItem(ctx, item)));
    figures.push(
      figure({
        item: '7 memory',
        metric: 'VmHWM of the service, whole run',
        value: memoryOf(service.pid)?.hwmMiB ?? null,
        unit: 'MiB',
        targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }],
      }),
    );
  } finally {
    await service.stop();
  }
  const report = {
    mode,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    duration_s_per_run: settings.durationS,
    machine: machine(),
    adapters,
    figures,
  };
  const written = writeReport(RESULTS, mode === 'embedded' ? 'latest' : 'latest-production', report);
  process.stdout.write(`\n${mode} adapters (${Object.values(adapters).join(', ')}), ${settings.durationS} s per run\n\n${consoleTable(figures)}\n\n`);
  process.stdout.write(`written: ${written.json}, ${written.md}\n`);
};

const modes = (): AdapterMode[] => {
  const choice = process.env.BENCH_ADAPTERS;
  if (choice === 'embedded' || choice === 'production') return [choice];
  if (choice === 'both') return ['embedded', 'production'];
  const production = Boolean(process.env.MONGO_URL || process.env.KAFKA_BROKERS || process.env.EVENTSTORE_URL);
  return production ? ['embedded', 'production'] : ['embedded'];
};

const settings = { durationS: seconds('BENCH_DURATION_S', 10), warmupS: seconds('BENCH_WARMUP_S', 2) };
const items = await loadItems();
for (const mode of modes()) {
  try {
    await runMode(mode, items, settings);
  } catch (error) {
    // A mode whose service cannot start (a production server down) does not stop the others.
    log(`${mode} adapters: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
