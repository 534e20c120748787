import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Summarises a `node --cpu-prof` profile (BENCH_CPU_PROF=1 writes one of the service): the
 * functions with the most self time, the files or packages with the most self time, and this
 * repository's functions with the most total time (self + callees).
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--skip-s S] [--until-s U]
 *
 * --skip-s leaves out the first S seconds (start-up, module loading); --until-s what comes after
 * U seconds (the idle tail after a drain).
 *
 * "charged to the innermost file or package" gives each sample to the innermost frame on its stack
 * that is a file of this repository or a package (Node's internals and native code such as a
 * socket's writev charged to whoever called them; idle, GC and program time apart): what each
 * part of the code costs with everything it runs below it, short of the next part.
 */
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const file = args.find((arg, index) => !arg.startsWith('--') && !args[index - 1]?.startsWith('--'));
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [--top N] [--skip-s S] [--until-s U]');
  process.exit(2);
}
const top = option('--top', 25);
const skipUs = option('--skip-s', 0) * 1e6;
const untilUs = option('--until-s', Infinity) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfTime = new Map<number, number>();
let elapsed = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsed += delta;
  if (elapsed >= skipUs && elapsed < untilUs) selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
});
const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);

const where = (node: Node) => {
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  return url ? `${relative(process.cwd(), url)}:${node.callFrame.lineNumber + 1}` : '(native)';
};
const label = (node: Node) => `${node.callFrame.functionName || '(anonymous)'}  ${where(node)}`;
const add = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value);

const functions = new Map<string, number>();
const files = new Map<string, number>();
const inclusive = new Map<string, number>();
const charged = new Map<string, number>();
const fileOrPackage = (url: string) =>
  relative(process.cwd(), url.replace(/^file:\/\//, '')).replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1');
for (const [id, time] of selfTime) {
  let owner: string | null = null;
  for (let at: number | undefined = id; at !== undefined && owner === null; at = parent.get(at)) {
    const url = (byId.get(at) as Node).callFrame.url;
    if (url.startsWith('file://')) owner = fileOrPackage(url);
  }
  add(charged, owner ?? (byId.get(id) as Node).callFrame.functionName, time);
  const node = byId.get(id) as Node;
  add(functions, label(node), time);
  add(files, where(node).replace(/:\d+$/, '').replace(/node_modules\/((@[^/]+\/)?[^/]+).*/, 'node_modules/$1'), time);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at) as Node;
    const url = frame.callFrame.url;
    if (!url.startsWith('file://') || url.includes('/node_modules/')) continue;
    const key = label(frame);
    if (!seen.has(key)) {
      seen.add(key);
      add(inclusive, key, time);
    }
  }
}
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('self time by function', functions);
print('self time by file or package', files);
print('time charged to the innermost file or package on the stack', charged);
print("this repository's functions, total time (self + callees)", inclusive);
