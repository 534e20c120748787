/**
 * Load time, time per image, CPU per image and RSS of each image model, and what each says on the
 * installed test photos (npx tsx scripts/models/measure.ts). Each model is measured in its own
 * fresh VisionModels so that its load and memory are its own. Wall times depend on the machine's
 * load (printed with them); CPU time per image is the process's CPU time over the repeated calls.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { fixturePath, imagenetSpecies, openVisionModels } from '../../infrastructure/vision/index.ts';

const REPEAT = Number(process.env.MEASURE_REPEAT ?? 10);
const mib = (b: number) => Math.round(b / 1048576);
const photos = Object.fromEntries((['chelsea', 'coffee', 'astronaut', 'horse'] as const).map((n) => {
  const p = fixturePath(n);
  if (!p) throw new Error('run `npm run models` first');
  return [n, readFileSync(p)];
})) as Record<string, Buffer>;
const cat = photos.chelsea;
photos['two cats (composed)'] = await sharp({ create: { width: 902, height: 300, channels: 3, background: '#ffffff' } })
  .composite([{ input: cat, left: 0, top: 0 }, { input: await sharp(cat).flop().toBuffer(), left: 451, top: 0 }]).jpeg().toBuffer();
photos['cat, left 60 % crop'] = await sharp(cat).extract({ left: 0, top: 0, width: 270, height: 300 }).png().toBuffer();
photos['cat, grey'] = await sharp(cat).greyscale().png().toBuffer();

console.log(`load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on 2 cores; ${REPEAT} timed calls per model`);
console.log('| model | first call (load + 1 image) | median per image | CPU per image | RSS after (process) |');
console.log('|---|---|---|---|---|');
for (const op of ['moderate', 'classify', 'detect'] as const) {
  const v = openVisionModels();
  const call = (b: Buffer) => (v[op] as (x: Buffer) => Promise<unknown>)(b);
  let t = performance.now();
  await call(cat);
  const first = performance.now() - t;
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < REPEAT; i++) {
    t = performance.now();
    await call(cat);
    times.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  console.log(`| ${op} | ${first.toFixed(0)} ms | ${times[Math.floor(REPEAT / 2)].toFixed(0)} ms | ${((cpu.user + cpu.system) / 1000 / REPEAT).toFixed(0)} ms | ${mib(process.memoryUsage().rss)} MiB |`);
  await v.close();
}

const v = openVisionModels();
await v.classify(cat);
await v.detect(cat);
await v.moderate(cat);
console.log(`\nRSS with all three models loaded in one process: ${mib(process.memoryUsage().rss)} MiB\n`);
console.log('| photo | safety (nsfw score) | classification top 3 | detections |');
console.log('|---|---|---|---|');
for (const [name, bytes] of Object.entries(photos)) {
  const s = await v.moderate(bytes);
  const c = await v.classify(bytes, 3);
  const d = await v.detect(bytes);
  const cls = c.map((x) => `${x.label}${imagenetSpecies(x.index) ? ` [${imagenetSpecies(x.index)}]` : ''} ${x.confidence.toFixed(2)}`).join(', ');
  const det = d.slice(0, 3).map((x) => `${x.label} ${x.confidence.toFixed(2)} (${[x.box.left, x.box.top, x.box.width, x.box.height].map((n) => n.toFixed(2)).join(', ')})`).join('; ') || 'none';
  console.log(`| ${name} | ${s.scores.nsfw.toFixed(3)}${s.unsafe ? ' UNSAFE' : ''} | ${cls} | ${det} |`);
}
await v.close();
