import pino, { type Logger } from 'pino';
import { openAdapters, type Adapters } from '../../infrastructure/adapters.ts';
import type { Config } from '../../infrastructure/config.ts';
import { openVisionModels } from '../../infrastructure/vision/index.ts';
import { visionProviderFromEnv, withVisionProvider } from '../../infrastructure/vision/hosted.ts';
import type { VisionModels } from '../../infrastructure/vision/port.ts';
import { projections } from '../../projectors/index.ts';
import { startProjections } from '../../projectors/runner.ts';
import { READ_MODEL_PROJECTIONS } from '../../contracts/read-models.ts';
import { importReferenceDataOnStart } from '../reference-data-import.ts';
import type { ImportDeps } from './import.ts';

/** How long the read models may take to catch up with the log (reference data on a fresh store, the import's own events). */
const CATCH_UP_MS = 10 * 60_000;

export type ImportSession = ImportDeps & {
  adapters: Adapters;
  /** The projections run in this process (embedded read store), else the service's do. */
  projecting: boolean;
  /** Waits (bounded) until the read models hold everything appended so far. */
  catchUp: () => Promise<boolean>;
  close: () => Promise<void>;
};

/**
 * What an import runs against, opened from the same configuration as `npm start`: the adapters
 * (embedded or production), the reference data imported as a start imports it (REFERENCE_DATA_IMPORT),
 * the image models (VISION_PROVIDER_* as the service), and — on the embedded read store, which
 * belongs to one process (stop the service first, as for a rebuild) — the projections, run here so
 * labelling finds the breeds, colours and breed centroids and the service starts with the import
 * projected. On MongoDB the running service's projectors do that (or, with the service stopped,
 * `runProjections`).
 */
export const openImportSession = async (
  config: Config,
  /** `runProjections`: also on a shared read store (MongoDB) — only while no service runs its projectors. */
  options: { logger?: Logger; vision?: VisionModels; runProjections?: boolean } = {},
): Promise<ImportSession> => {
  const logger = options.logger ?? pino({ name: 'image-import', level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const adapters = await openAdapters(config);
  const vision = options.vision ?? withVisionProvider(openVisionModels(), visionProviderFromEnv());
  try {
    if (config.referenceDataImport) await importReferenceDataOnStart(adapters, logger);
    const projecting = adapters.kinds.readStore === 'embedded' || options.runProjections === true;
    const running = projecting ? await startProjections(adapters.eventStore, adapters.readStore, projections, logger) : null;
    const catchUp = async () => adapters.readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, await adapters.eventStore.headPosition(), CATCH_UP_MS);
    if (projecting) await catchUp();
    return {
      eventStore: adapters.eventStore,
      readStore: adapters.readStore,
      blobs: adapters.blobs,
      vision,
      logger,
      adapters,
      projecting,
      catchUp,
      close: async () => {
        if (projecting) await catchUp();
        await running?.stop();
        if (!options.vision) await vision.close();
        await adapters.close();
      },
    };
  } catch (error) {
    if (!options.vision) await vision.close();
    await adapters.close();
    throw error;
  }
};
