import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { projections, projectionByName } from '../projectors/index.ts';
import { rebuildProjection } from './rebuild.ts';

/**
 * npm run rebuild -- <projection|all>
 * Rebuilds read models from position 0 and reports whether they equal the live ones.
 * With the embedded read store, stop the service first (it owns the read-model file).
 */
const { positionals } = parseArgs({ allowPositionals: true, options: {} });
const target = positionals[0];
if (!target) {
  console.error(`usage: npm run rebuild -- <${projections.map((p) => p.name).join('|')}|all>`);
  process.exit(2);
}
const selected = target === 'all' ? projections : [projectionByName(target)].filter((p) => p !== undefined);
if (selected.length === 0) {
  console.error(`unknown projection '${target}'; known: ${projections.map((p) => p.name).join(', ')}, all`);
  process.exit(2);
}

const adapters = await openAdapters(loadConfig());
let allIdentical = true;
try {
  for (const projection of selected) {
    const bar = new cliProgress.SingleBar(
      { format: `${projection.name.padEnd(12)} [{bar}] {percentage}% | {value}/{total} events`, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    const head = Number(await adapters.eventStore.headPosition());
    bar.start(head, 0);
    const report = await rebuildProjection(adapters.eventStore, adapters.readStore, projection, (position) => bar.update(Number(position)));
    bar.update(head);
    bar.stop();
    for (const collection of report.collections) {
      const verdict = collection.differing.length === 0 ? 'identical to the live read model' : `${collection.differing.length} documents differed from the live read model`;
      console.log(`  ${collection.name}: ${collection.after} documents (${collection.before} before) — ${verdict}`);
      if (collection.differing.length > 0) console.log(`    e.g. ${collection.differing.slice(0, 10).join(', ')}`);
    }
    allIdentical &&= report.identical;
  }
} finally {
  await adapters.close();
}
console.log(allIdentical ? 'check passed: rebuilt read models equal the live ones' : 'check: the rebuilt read models differ from the live ones (now replaced by the rebuilt ones)');
process.exit(allIdentical ? 0 : 1);
