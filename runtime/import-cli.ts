import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { importReferenceData } from '../command-api/handlers/reference-data.ts';

/**
 * npm run import [-- --force] [-- --dir <folder>]
 * Imports reference-data/ as events (idempotent: unchanged records append nothing). --force runs
 * every record through its decider even when the dataset hash matches the last import.
 */
const { values } = parseArgs({ options: { force: { type: 'boolean', default: false }, dir: { type: 'string' } } });
const adapters = await openAdapters(loadConfig());
const bar = new cliProgress.SingleBar(
  { format: 'reference data [{bar}] {percentage}% | {value}/{total} records', hideCursor: true },
  cliProgress.Presets.shades_classic,
);
let started = false;
let exitCode = 0;
try {
  const result = await importReferenceData(adapters.eventStore, {
    force: values.force,
    dir: values.dir,
    onProgress: (done, total) => {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
  });
  if (started) bar.stop();
  if (result.status === 'invalid') {
    console.error(`reference data is invalid (${result.problems.length} problems); nothing imported:`);
    for (const problem of result.problems.slice(0, 100)) console.error(`  ${problem}`);
    exitCode = 1;
  } else if (result.status === 'unchanged') {
    console.log(`reference data unchanged since the last import (dataset ${result.datasetHash.slice(0, 12)}); nothing appended`);
  } else {
    const byType = Object.entries(result.byType)
      .map(([type, count]) => `${type} ${count}`)
      .join(', ');
    console.log(`imported ${result.records} records (dataset ${result.datasetHash.slice(0, 12)}): ${result.appended} events appended${byType ? ` (${byType})` : ''}`);
  }
} finally {
  await adapters.close();
}
process.exit(exitCode);
