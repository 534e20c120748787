import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { exportLines } from './event-transfer.ts';

/**
 * npm run export -- [--stream <name>] [--include-secrets] [--out <file>]
 * The log (or one stream) as NDJSON, to stdout or a file. Secrets are redacted (an auditor's copy)
 * unless --include-secrets, which keeps API key hashes and signing-secret ciphertexts for a full
 * restore with `npm run import-events` — treat such a file like the database itself.
 */
const { values } = parseArgs({
  options: { stream: { type: 'string' }, 'include-secrets': { type: 'boolean', default: false }, out: { type: 'string' } },
});
const adapters = await openAdapters(loadConfig());
const out = values.out ? createWriteStream(values.out) : process.stdout;
let lines = 0;
try {
  for await (const line of exportLines(adapters.eventStore, { stream: values.stream, includeSecrets: values['include-secrets'] })) {
    lines += 1;
    if (!out.write(line)) await once(out, 'drain');
  }
} finally {
  await adapters.close();
}
if (values.out) {
  out.end();
  await once(out, 'finish');
}
process.stderr.write(`exported ${lines} events${values['include-secrets'] ? ' (with key hashes and secret ciphertexts)' : ' (secrets redacted)'}\n`);
