import sharp from 'sharp';
import { readFileSync, readdirSync } from 'node:fs';
sharp.cache(false);
if (process.env.CONC) sharp.concurrency(Number(process.env.CONC));
const j = Buffer.from(JSON.parse(readFileSync('/tmp/bench-up.json', 'utf8')).image, 'base64');
const cpuOf = () => { const out = {}; for (const t of readdirSync('/proc/self/task')) { try { const st = readFileSync(`/proc/self/task/${t}/stat`, 'utf8'); const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')); const f = st.slice(st.lastIndexOf(')') + 2).split(' '); out[t] = { comm, u: +f[11], s: +f[12] }; } catch {} } return out; };
const one = async () => {
  const d = await sharp(j).rotate().resize({ width: 640, height: 640, fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: d.info.width, height: d.info.height, channels: d.info.channels } };
  await Promise.all([640, 320, 150].map((b) => { const p = sharp(d.data, raw); if (b < 640) p.resize({ width: b, height: b, fit: 'inside' }); return p.jpeg({ quality: 85 }).toBuffer(); }));
};
const base = async () => sharp(j).resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
for (const [name, fn] of [['baseline', base], ['service-like', one]]) {
  for (let i = 0; i < 10; i++) await fn();
  const c0 = cpuOf(); const t0 = performance.now(); let n = 0;
  await Promise.all(Array.from({ length: 4 }, async () => { while (performance.now() - t0 < 4000) { await fn(); n++; } }));
  const c1 = cpuOf(); const g = {};
  for (const t in c1) { const a = c0[t] ?? { u: 0, s: 0 }; const k = c1[t].comm; g[k] ??= { u: 0, s: 0 }; g[k].u += c1[t].u - a.u; g[k].s += c1[t].s - a.s; }
  console.log(name, `conc=${sharp.concurrency()}`, `${(n / 4).toFixed(1)}/s`, Object.entries(g).filter(([, v]) => v.u + v.s > 0).map(([k, v]) => `${k}: u ${(v.u * 10 / n).toFixed(1)} s ${(v.s * 10 / n).toFixed(1)} ms/op`).join('; '));
}
