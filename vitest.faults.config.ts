import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`): the production topology on a Kafka broker and a
 * Mongo-wire server of its own, faults injected under load, ≈ 10 min. Not part of `npm test`
 * (vitest.config.ts leaves test/faults out); CI runs it in its production stage.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.spec.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
