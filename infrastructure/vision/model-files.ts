import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../project-root.ts';
import { ModelsUnavailableError, type ModelInfo } from './port.ts';

/** What `npm run models` (scripts/models/build.py) writes as the folder's manifest.json. */
export type ModelManifest = {
  recipe: number;
  models: (ModelInfo & { files: string[] })[];
  files: Record<string, string>;
};

/**
 * The installation recipe this code runs on: RECIPE in scripts/models/build.py (a unit test keeps
 * them equal). A folder of another recipe holds other files (recipe 3 had the detector as a
 * TensorFlow.js graph, recipe 4 as ONNX): it counts as not installed until `npm run models` rebuilds it.
 */
export const MODELS_RECIPE = 4;

/** The model folder: the option, else env MODELS_DIR, else `.models/` at the repository root. */
export function resolveModelDir(modelDir?: string): string {
  if (modelDir) return resolve(modelDir);
  if (process.env.MODELS_DIR) return resolve(process.env.MODELS_DIR);
  return join(PROJECT_ROOT, '.models');
}

/** Reads the manifest and checks that every model file it lists is there; ModelsUnavailableError if not. */
export function readManifest(dir: string): ModelManifest {
  let manifest: ModelManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ModelManifest;
  } catch {
    throw new ModelsUnavailableError(`image models are not installed in ${dir} (run \`npm run models\`)`);
  }
  if (manifest.recipe !== MODELS_RECIPE) {
    throw new ModelsUnavailableError(`the image models in ${dir} are of installation recipe ${String(manifest.recipe)}, this version needs ${MODELS_RECIPE} (run \`npm run models\`)`);
  }
  for (const model of manifest.models ?? []) {
    for (const file of model.files) {
      if (!existsSync(join(dir, file))) throw new ModelsUnavailableError(`model file ${file} is missing from ${dir} (run \`npm run models\`)`);
    }
  }
  for (const task of ['safety', 'classification', 'detection'] as const) {
    if (!manifest.models?.some((m) => m.task === task)) throw new ModelsUnavailableError(`no ${task} model in ${dir}/manifest.json (run \`npm run models\`)`);
  }
  return manifest;
}

/** The classification model's network: the ONNX file its manifest entry lists (the class names are a JSON beside it). */
export function classifierFile(manifest: ModelManifest): string {
  const file = manifest.models.find((m) => m.task === 'classification')?.files.find((f) => f.endsWith('.onnx'));
  if (!file) throw new ModelsUnavailableError('the classification model in manifest.json lists no .onnx file (run `npm run models`)');
  return file;
}

/** The photos the installation extracts from scikit-image's wheel for tests (null when not installed). */
export function fixturePath(name: 'chelsea' | 'coffee' | 'astronaut' | 'horse', modelDir?: string): string | null {
  const p = join(resolveModelDir(modelDir), 'fixtures', `${name}.png`);
  return existsSync(p) ? p : null;
}
