import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../infrastructure/config.ts';
import { countEntries, importImages, type ImportSummary, type PhotoOutcome } from './image-import/import.ts';
import { ManifestError } from './image-import/sources.ts';
import { openImportSession } from './image-import/session.ts';

/**
 * npm run import:images -- <folder> [--manifest manifest.csv|.jsonl] [--concurrency N] [--json]
 * Imports a folder of photos into the catalogue through the image pipeline (runtime/image-import/),
 * against the configured data store (DATA_DIR, or MONGO_URL/EVENTSTORE_URL/KAFKA_BROKERS as for
 * `npm start`; on the embedded store, stop the service first; on MongoDB the service's projectors
 * project the import, or --run-projections does it here while the service is stopped). A progress bar with rate and ETA on
 * a terminal, a summary at the end; --json prints one JSON line per photo and the summary last.
 */
const usage = 'usage: npm run import:images -- <folder> [--manifest manifest.csv|manifest.jsonl] [--concurrency N] [--json] [--run-projections]';
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    manifest: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
    'run-projections': { type: 'boolean', default: false },
  },
});
const concurrency = Number(values.concurrency);
if (positionals.length !== 1 || !Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
  console.error(usage);
  process.exit(2);
}
const folder = resolve(positionals[0]);
const manifest = values.manifest ? resolve(values.manifest) : undefined;
for (const [what, path, directory] of [['folder', folder, true], ['manifest', manifest, false]] as const) {
  if (!path) continue;
  const info = await stat(path).catch(() => null);
  if (!info || info.isDirectory() !== directory) {
    console.error(`${what} ${path}: not a ${directory ? 'directory' : 'file'}`);
    process.exit(2);
  }
}

const json = values.json;
const write = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
const session = await openImportSession(loadConfig(), { runProjections: values['run-projections'] });
let exitCode = 0;
try {
  const total = await countEntries({ folder, manifest });
  const bar =
    !json && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: 'photos [{bar}] {percentage}% | {value}/{total} | {rate} photos/s | ETA {eta_formatted} | imported {imported}, skipped {skipped}',
            hideCursor: true,
            stream: process.stderr,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  const started = performance.now();
  let done = 0;
  let imported = 0;
  bar?.start(total, 0, { rate: '0.0', imported: 0, skipped: 0 });
  const summary: ImportSummary = await importImages(session, {
    folder,
    manifest,
    concurrency,
    onOutcome: (outcome: PhotoOutcome) => {
      done += 1;
      if (outcome.status === 'imported') imported += 1;
      if (json) write({ type: 'photo', ...outcome });
      bar?.update(done, { rate: (done / ((performance.now() - started) / 1000)).toFixed(1), imported, skipped: done - imported });
    },
  });
  bar?.stop();
  if (json) write({ type: 'summary', ...summary });
  else {
    const skipped = Object.entries(summary.skipped).filter(([, count]) => count > 0);
    const species = Object.entries(summary.by_species).map(([id, count]) => `${id === 'none' ? 'no animal found' : `species ${id}`}: ${count}`);
    console.log(`imported ${summary.imported} photos (${summary.public} public, ${summary.private} private) in ${summary.seconds.toFixed(1)} s, ${summary.photos_per_second.toFixed(2)} photos/s`);
    if (species.length > 0) console.log(`  by species: ${species.join(', ')}`);
    console.log(`skipped ${skipped.reduce((sum, [, count]) => sum + count, 0)}${skipped.length ? `: ${skipped.map(([reason, count]) => `${reason} ${count}`).join(', ')}` : ''}`);
    if (summary.unknown_folders.length > 0) console.log(`  folders matching no breed (their photos skipped): ${summary.unknown_folders.join(', ')}`);
  }
  if (!session.projecting) console.error('the read models are updated by the running service’s projectors');
} catch (error) {
  if (!(error instanceof ManifestError)) throw error;
  console.error(`import refused: ${error.message}`);
  exitCode = 1;
} finally {
  await session.close();
}
process.exit(exitCode);
