/**
 * The module the inference workers start from, as plain JavaScript: compiled (`npm run build`),
 * the worker's own file; from the sources, the worker's code as one ES module bundled once per
 * process with esbuild (the compiler tsx runs on). Either way a worker thread starts without
 * registering a TypeScript loader of its own (≈ 30 MB per worker). In the bundle, packages stay
 * outside, imported by their resolved file address (the module itself lives at a data: address,
 * which has no node_modules).
 */
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { RUNS_COMPILED } from '../project-root.ts';

const require = createRequire(import.meta.url);

const packagesByAddress: Plugin = {
  name: 'packages-by-address',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') ? { path: args.path, external: true } : { path: pathToFileURL(require.resolve(args.path)).href, external: true },
    );
  },
};

let bundled: Promise<URL> | null = null;

/** The worker's code bundled by esbuild (loaded only here, so a compiled process never loads it) as a data: URL. */
const bundle = async (): Promise<URL> => {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [packagesByAddress],
  });
  return new URL(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString('base64')}`);
};

/**
 * The worker module's address: compiled (`npm run build`), the worker's own JavaScript file beside
 * this one; from the sources, a data: URL bundled on the first call and kept (made again after a
 * failed bundling).
 */
export const workerModule = (): Promise<URL> =>
  (bundled ??= RUNS_COMPILED
    ? Promise.resolve(new URL('./worker.js', import.meta.url))
    : bundle().catch((error: unknown) => {
        bundled = null;
        throw error;
      }));
