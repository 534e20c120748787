import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { classifierFile, MODELS_RECIPE, readManifest, type ModelManifest } from './model-files.ts';
import { ModelsUnavailableError } from './port.ts';

const dirs: string[] = [];
const folder = (manifest: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'models-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
};
const models = (files: string[]) => ['safety', 'classification', 'detection'].map((task, i) => ({ task, name: task, version: '1', licence: 'x', source: 'y', files: [files[i]] }));

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the model folder’s manifest', () => {
  it('runs on the recipe scripts/models/build.py installs', () => {
    const build = readFileSync(new URL('../../scripts/models/build.py', import.meta.url), 'utf8');
    expect(Number(/^RECIPE = (\d+)$/m.exec(build)?.[1])).toBe(MODELS_RECIPE);
  });

  it('takes a folder of another recipe for not installed, naming both recipes', () => {
    const dir = folder({ recipe: MODELS_RECIPE - 1, models: models(['a', 'b', 'c']), files: {} });
    for (const f of ['a', 'b', 'c']) writeFileSync(join(dir, f), '');
    expect(() => readManifest(dir)).toThrow(ModelsUnavailableError);
    expect(() => readManifest(dir)).toThrow(new RegExp(`recipe ${MODELS_RECIPE - 1}, this version needs ${MODELS_RECIPE}`));
  });

  it('accepts a complete folder of its recipe, and refuses one with a model file missing', () => {
    const dir = folder({ recipe: MODELS_RECIPE, models: models(['a', 'b', 'c']), files: {} });
    for (const f of ['a', 'b']) writeFileSync(join(dir, f), '');
    expect(() => readManifest(dir)).toThrow(/model file c is missing/);
    writeFileSync(join(dir, 'c'), '');
    expect(readManifest(dir).recipe).toBe(MODELS_RECIPE);
  });

  it('takes the classifier network from the classification entry’s .onnx file, so a folder can carry another variant', () => {
    const manifest = (files: string[]): ModelManifest => ({
      recipe: MODELS_RECIPE,
      files: {},
      models: [
        { task: 'safety', name: 's', version: '1', licence: 'x', source: 'y', files: ['safety/s.onnx'] },
        { task: 'classification', name: 'c', version: '1', licence: 'x', source: 'y', files },
        { task: 'detection', name: 'd', version: '1', licence: 'x', source: 'y', files: ['detection/d.onnx'] },
      ],
    });
    expect(classifierFile(manifest(['classification/imagenet-classes.json', 'classification/efficientnet-lite0.onnx']))).toBe('classification/efficientnet-lite0.onnx');
    expect(classifierFile(manifest(['classification/lite2-260.onnx', 'classification/imagenet-classes.json']))).toBe('classification/lite2-260.onnx');
    expect(() => classifierFile(manifest(['classification/imagenet-classes.json']))).toThrow(ModelsUnavailableError);
  });
});
