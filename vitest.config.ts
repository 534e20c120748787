import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.spec.ts'],
    // test/faults: the fault suite, `npm run test:faults` (vitest.faults.config.ts).
    exclude: ['node_modules/**', 'var/**', '.dev-servers/**', 'test/faults/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
