/**
 * The real models on real photos (scikit-image's test photos, extracted by `npm run models`).
 * Skipped with a message when the models are not installed, except in CI (CI=true), where a
 * missing installation fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ImageDecodeError,
  ModelsUnavailableError,
  VisionTaskTimeoutError,
  fixturePath,
  imagenetSpecies,
  openVisionModels,
  resolveModelDir,
  type BoundingBox,
  type Detection,
} from './index.ts';

const modelDir = resolveModelDir();
const installed = existsSync(join(modelDir, 'manifest.json')) && fixturePath('chelsea') !== null;
const inCi = process.env.CI === 'true';
if (!installed && !inCi) console.warn(`vision.int.spec: image models not installed in ${modelDir}: skipped (run \`npm run models\`)`);

const photo = (name: 'chelsea' | 'coffee' | 'astronaut' | 'horse') => readFileSync(fixturePath(name)!);
const contains = (b: BoundingBox, x: number, y: number) => x >= b.left && x <= b.left + b.width && y >= b.top && y <= b.top + b.height;
const centre = (d: Detection) => ({ x: d.box.left + d.box.width / 2, y: d.box.top + d.box.height / 2 });
const onnxLoaded = () => readFileSync('/proc/self/maps', 'utf8').includes('libonnxruntime');

describe('vision models: installation', () => {
  it.runIf(inCi)('are installed in CI', () => {
    expect(installed, `models missing from ${modelDir}: .ci/run must run \`npm run models\``).toBe(true);
  });

  it('a missing model folder answers ModelsUnavailableError on use, not on open', async () => {
    const v = openVisionModels({ modelDir: join(modelDir, 'does-not-exist') });
    expect(v.info()).toEqual([]);
    await expect(v.classify(Buffer.from('x'))).rejects.toBeInstanceOf(ModelsUnavailableError);
    await expect(v.detect(Buffer.from('x'))).rejects.toBeInstanceOf(ModelsUnavailableError);
    await v.close();
  });
});

describe.runIf(installed)('vision models on real photos', () => {
  const vision = openVisionModels();
  afterAll(() => vision.close());

  it('loads nothing until the first call, then runs the models in this process (worker threads)', async () => {
    const hasMaps = existsSync('/proc/self/maps');
    if (hasMaps) expect(onnxLoaded()).toBe(false);
    expect(vision.info().map((m) => m.task).sort()).toEqual(['classification', 'detection', 'safety']);
    if (hasMaps) expect(onnxLoaded()).toBe(false);
    await vision.classify(photo('coffee'));
    if (hasMaps) expect(onnxLoaded()).toBe(true);
  }, 120_000);

  it('runs inference on threads of lower priority (nice 10 by default), the rest of the process unchanged', async () => {
    const tasks = '/proc/self/task';
    if (!existsSync(tasks)) return; // the per-thread nice value is Linux's
    const niceOf = (tid: string): number | null => {
      try {
        // the command name (field 2) may hold spaces: the fields after its closing parenthesis
        const stat = readFileSync(join(tasks, tid, 'stat'), 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      } catch {
        return null; // the thread ended meanwhile
      }
    };
    const threads = () => readdirSync(tasks).map((tid) => ({ tid, nice: niceOf(tid) })).filter((t) => t.nice !== null);
    await vision.moderate(photo('coffee'));
    await vision.detect(photo('coffee'));
    const all = threads();
    expect(niceOf(String(process.pid))).toBe(0);
    expect(all.filter((t) => t.nice === 10).length).toBeGreaterThanOrEqual(1); // the inference worker, and whatever the runtimes started from it
    const plain = openVisionModels({ nice: 0 });
    const before = new Set(threads().map((t) => t.tid));
    await plain.classify(photo('coffee'));
    const started = threads().filter((t) => !before.has(t.tid));
    expect(started.length).toBeGreaterThan(0);
    expect(started.every((t) => t.nice === 0)).toBe(true);
    await plain.close();
  }, 120_000);

  it('names each model with version, licence and source', () => {
    for (const m of vision.info()) {
      expect(m.name).not.toBe('');
      expect(m.version).not.toBe('');
      expect(m.licence).toMatch(/BSD|Apache|MIT/);
      expect(m.source).toMatch(/PyPI|npm/);
    }
  });

  it('classifies the cat photo as a domestic cat class', async () => {
    const top = await vision.classify(photo('chelsea'), 3);
    expect(top).toHaveLength(3);
    expect(imagenetSpecies(top[0].index)).toBe('1');
    expect(top.reduce((s, c) => s + (imagenetSpecies(c.index) === '1' ? c.confidence : 0), 0)).toBeGreaterThan(0.6);
    expect(top[0].confidence).toBeGreaterThanOrEqual(top[1].confidence);
  }, 120_000);

  it('classifies the coffee photo as espresso and as no animal', async () => {
    const top = await vision.classify(photo('coffee'), 5);
    expect(top[0]).toMatchObject({ index: 967, label: 'espresso' });
    expect(top[0].confidence).toBeGreaterThan(0.5);
    expect(top.every((c) => imagenetSpecies(c.index) === null)).toBe(true);
  }, 120_000);

  it('finds the cat photo safe (and the other photos too)', async () => {
    const cat = await vision.moderate(photo('chelsea'));
    expect(cat.unsafe).toBe(false);
    expect(cat.scores.nsfw).toBeLessThan(0.2);
    expect(cat.scores.sfw + cat.scores.nsfw).toBeCloseTo(1, 3);
    expect(cat.labels).toEqual([]);
    for (const name of ['coffee', 'astronaut', 'horse'] as const) expect((await vision.moderate(photo(name))).unsafe).toBe(false);
  }, 120_000);

  it('detects the cat in the cat photo with a box over its face', async () => {
    const found = await vision.detect(photo('chelsea'));
    expect(found[0].label).toBe('cat');
    expect(found[0].confidence).toBeGreaterThan(0.4);
    const box = found[0].box;
    // the photo (451×300): eyes near (170,115) and (318,135), nose near (263,240); the cat ends ≈ x 400
    for (const [x, y] of [[170, 115], [318, 135], [263, 240]]) expect(contains(box, x / 451, y / 300)).toBe(true);
    expect(box.left + box.width).toBeGreaterThan(0.75);
    expect(box.left + box.width).toBeLessThan(0.98);
    expect(box.width * box.height).toBeGreaterThan(0.5);
    expect(found.some((d) => d.label === 'dog' && d.confidence > found[0].confidence)).toBe(false);
  }, 120_000);

  it('finds two cats side by side, one box on each side', async () => {
    const cat = photo('chelsea');
    const two = await sharp({ create: { width: 902, height: 300, channels: 3, background: '#ffffff' } })
      .composite([{ input: cat, left: 0, top: 0 }, { input: await sharp(cat).flop().toBuffer(), left: 451, top: 0 }])
      .jpeg()
      .toBuffer();
    const cats = (await vision.detect(two)).filter((d) => d.label === 'cat');
    expect(cats).toHaveLength(2);
    const [left, right] = cats.sort((a, b) => centre(a).x - centre(b).x);
    expect(centre(left).x).toBeLessThan(0.5);
    expect(centre(right).x).toBeGreaterThan(0.5);
    expect(left.box.left + left.box.width).toBeLessThan(0.55);
    expect(right.box.left).toBeGreaterThan(0.45);
  }, 120_000);

  it('detects the horse silhouette as a horse and the astronaut as a person, not an animal', async () => {
    const horse = await vision.detect(photo('horse'));
    expect(horse[0].label).toBe('horse');
    const astronaut = await vision.detect(photo('astronaut'));
    expect(astronaut[0].label).toBe('person');
    expect(astronaut.some((d) => ['cat', 'dog', 'horse'].includes(d.label))).toBe(false);
  }, 120_000);

  it('examines the whole image and box crops in one call: classes, cat/dog mass, L2-normalised features', async () => {
    const cat = photo('chelsea');
    const [box] = (await vision.detect(cat)).filter((d) => d.label === 'cat');
    const [whole, crop, corner] = await vision.examine(cat, [null, box.box, { left: 0.9, top: 0, width: 0.1, height: 0.1 }], { topK: 3 });
    expect(whole.top).toHaveLength(3);
    expect(imagenetSpecies(whole.top[0].index)).toBe('1');
    expect(whole.mass.cat).toBeGreaterThan(0.5);
    expect(whole.mass.dog).toBeLessThan(0.1);
    expect(crop.mass.cat).toBeGreaterThan(0.5);
    expect(whole.features).toHaveLength(1280);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i], 0);
    for (const view of [whole, crop, corner]) expect(dot(view.features, view.features)).toBeCloseTo(1, 4);
    // the same cat mirrored is near; the coffee photo and a corner of the background are not
    const [mirrored] = await vision.examine(await sharp(cat).flop().png().toBuffer(), [null]);
    const [coffee] = await vision.examine(photo('coffee'), [null]);
    expect(dot(whole.features, mirrored.features)).toBeGreaterThan(0.8);
    expect(dot(whole.features, coffee.features)).toBeLessThan(dot(whole.features, mirrored.features) - 0.3);
    expect(dot(whole.features, crop.features)).toBeGreaterThan(dot(whole.features, corner.features));
    // the whole-image view answers what classify answers
    expect((await vision.classify(cat, 1))[0].index).toBe(whole.top[0].index);
    expect(await vision.examine(cat, [])).toEqual([]);
  }, 120_000);

  it('reads JPEG, WebP and GIF (first frame) bytes alike', async () => {
    const cat = photo('chelsea');
    for (const format of ['jpeg', 'webp', 'gif'] as const) {
      const bytes = await sharp(cat).toFormat(format).toBuffer();
      const [top] = await vision.classify(bytes, 1);
      expect(imagenetSpecies(top.index), format).toBe('1');
    }
  }, 120_000);

  it('rejects bytes that are not an image with ImageDecodeError, and keeps working', async () => {
    await expect(vision.detect(Buffer.from('definitely not an image'))).rejects.toBeInstanceOf(ImageDecodeError);
    await expect(vision.moderate(Buffer.alloc(0))).rejects.toBeInstanceOf(ImageDecodeError);
    const truncated = photo('coffee').subarray(0, 2000);
    await expect(vision.classify(truncated)).rejects.toBeInstanceOf(ImageDecodeError);
    expect((await vision.classify(photo('coffee'), 1))[0].index).toBe(967);
  }, 120_000);

  it('fails a call that outlives its timeout instead of hanging, and the next call gets a new worker', async () => {
    const impatient = openVisionModels({ taskTimeoutMs: 5 });
    await expect(impatient.detect(photo('chelsea'))).rejects.toBeInstanceOf(VisionTaskTimeoutError);
    await expect(impatient.classify(photo('chelsea'))).rejects.toBeInstanceOf(VisionTaskTimeoutError);
    await impatient.close();
    await expect(impatient.classify(photo('chelsea'))).rejects.toThrow(/closed/);
  }, 120_000);

  it('keeps the event loop responsive while models run, and answers concurrent calls correctly', async () => {
    const cat = photo('chelsea');
    const coffee = photo('coffee');
    const expected = (await vision.classify(cat, 1))[0].index;
    await vision.detect(cat);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let ticks = 0;
    let worstGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
      ticks++;
    }, 10);
    delay.enable();
    const started = performance.now();
    const results = await Promise.all([
      vision.detect(cat), vision.classify(cat, 1), vision.moderate(cat),
      vision.detect(coffee), vision.classify(coffee, 1), vision.moderate(coffee),
      vision.detect(cat), vision.classify(cat, 1),
    ]);
    const busyMs = performance.now() - started;
    delay.disable();
    clearInterval(timer);
    expect((results[0] as Detection[])[0].label).toBe('cat');
    expect((results[1] as { index: number }[])[0].index).toBe(expected);
    expect((results[4] as { index: number }[])[0].index).toBe(967);
    expect((results[6] as Detection[])[0].label).toBe('cat');
    // three detections alone take far longer than any gap between timer ticks
    expect(busyMs).toBeGreaterThan(3 * worstGap);
    expect(worstGap).toBeLessThan(250);
    expect(ticks).toBeGreaterThan(busyMs / 10 / 4);
    console.info(`vision: 8 concurrent calls in ${busyMs.toFixed(0)} ms; event loop: worst timer gap ${worstGap.toFixed(0)} ms, p99 delay ${(delay.percentile(99) / 1e6).toFixed(0)} ms`);
  }, 180_000);
});
