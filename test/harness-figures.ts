import { mkdirSync, writeFileSync } from 'node:fs';

/** Where the harness suites leave their figures; .ci/run prints them after `npm test`. */
export const HARNESS_DIR = '.dev-servers/harness';

/** Records one line of figures of a harness suite (matrix size, crash-recovery counts, …). */
export const recordFigures = (name: string, line: string): void => {
  mkdirSync(HARNESS_DIR, { recursive: true });
  writeFileSync(`${HARNESS_DIR}/${name}.txt`, `${line}\n`);
};
