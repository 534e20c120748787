import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { projections, projectionByName } from '../projectors/index.ts';
import { rebuildProjection } from './rebuild.ts';
import { verifyInScratch } from './verify.ts';

/**
 * npm run rebuild -- <projection|all> [--verify]
 * Rebuilds read models from position 0 and reports whether they equal the live ones.
 * With the embedded read store, stop the service first (it owns the read-model file).
 * --verify rebuilds into a scratch store instead and only compares: the live read models are
 * left alone, so on MongoDB it runs while the service does. Exit 1 on any difference.
 */
const { positionals, values } = parseArgs({ allowPositionals: true, options: { verify: { type: 'boolean', default: false } } });
const target = positionals[0];
if (!target) {
  console.error(`usage: npm run rebuild -- <${projections.map((p) => p.name).join('|')}|all> [--verify]`);
  process.exit(2);
}
const selected = target === 'all' ? projections : [projectionByName(target)].filter((p) => p !== undefined);
if (selected.length === 0) {
  console.error(`unknown projection '${target}'; known: ${projections.map((p) => p.name).join(', ')}, all`);
  process.exit(2);
}

const config = loadConfig();
const adapters = await openAdapters(config);
let allIdentical = true;
try {
  for (const projection of selected) {
    if (values.verify) {
      const bar = new cliProgress.SingleBar(
        { format: `${projection.name.padEnd(12)} [{bar}] {percentage}% | {value}/{total} positions (scratch store)`, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Number(await adapters.eventStore.headPosition()), 0);
      const report = await verifyInScratch(config, adapters.eventStore, adapters.readStore, projection, (position, goal) => {
        bar.setTotal(Number(goal));
        bar.update(Number(position));
      });
      bar.stop();
      for (const collection of report.collections) {
        const verdict = collection.differing.length === 0 ? 'identical' : `${collection.differing.length} documents differ`;
        console.log(`  ${collection.name}: ${collection.rebuilt} rebuilt, ${collection.live} live at position ${report.position} — ${verdict}`);
        if (collection.differing.length > 0) console.log(`    e.g. ${collection.differing.slice(0, 10).join(', ')}`);
      }
      allIdentical &&= report.identical;
      continue;
    }
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
if (values.verify) console.log(allIdentical ? 'verify passed: a replay from position 0 reproduces the live read models' : 'verify FAILED: the live read models differ from a replay (left untouched)');
else console.log(allIdentical ? 'check passed: rebuilt read models equal the live ones' : 'check: the rebuilt read models differ from the live ones (now replaced by the rebuilt ones)');
process.exit(allIdentical ? 0 : 1);
