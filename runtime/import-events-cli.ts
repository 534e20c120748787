import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { importLines, ImportError } from './event-transfer.ts';

/**
 * npm run import-events -- <file.ndjson> [--allow-redacted]
 * Appends an export into an EMPTY event store (DATA_DIR / EVENTSTORE_URL); start the service
 * afterwards and its projectors build the read models from it. Refuses a store with events.
 */
const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'allow-redacted': { type: 'boolean', default: false } } });
if (!positionals[0]) {
  console.error('usage: npm run import-events -- <file.ndjson> [--allow-redacted]');
  process.exit(2);
}
const adapters = await openAdapters(loadConfig());
let status = 0;
try {
  const lines = createInterface({ input: createReadStream(positionals[0]), crlfDelay: Infinity });
  const report = await importLines(adapters.eventStore, lines, {
    allowRedacted: values['allow-redacted'],
    onProgress: (events) => events % 10_000 === 0 && process.stderr.write(`  ${events} events\n`),
  });
  console.log(`imported ${report.events} events in ${report.streams} streams${report.redacted ? ' (redacted: its API keys will not authenticate)' : ''}`);
} catch (error) {
  if (!(error instanceof ImportError)) throw error;
  console.error(`import refused: ${error.message}`);
  status = 1;
} finally {
  await adapters.close();
}
process.exit(status);
