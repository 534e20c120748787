import type { FastifyPluginAsync } from 'fastify';
import type { Adapters } from '../infrastructure/adapters.ts';
import type { Config } from '../infrastructure/config.ts';
import { imageSettingsOf } from '../http/image-settings.ts';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { registerReadYourWrites } from '../http/consistency.ts';
import type { WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { QueryApiDeps } from './deps.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { voteQueryRoutes } from './routes/votes.ts';
import { favouriteQueryRoutes } from './routes/favourites.ts';
import { accountQueryRoutes } from './routes/accounts.ts';
import { webhookQueryRoutes } from './routes/webhooks.ts';
import { factQueryRoutes } from './routes/facts.ts';
import { healthTipQueryRoutes } from './routes/health-tips.ts';
import { breedQueryRoutes } from './routes/breeds.ts';
import { categoryQueryRoutes } from './routes/categories.ts';
import { legislationQueryRoutes } from './routes/legislation.ts';
import { adminStreamRoutes } from './routes/admin/streams.ts';
import { adminEventRoutes } from './routes/admin/events.ts';
import { adminExportRoutes } from './routes/admin/export.ts';
import { imageQueryRoutes } from './routes/images.ts';
import { imageSimilarRoutes } from './routes/image-similar.ts';
import { imagePipelineQueryRoutes } from './routes/image-pipeline.ts';
import { imageFileRoutes } from './routes/image-files.ts';
import { uploadQuotaQueryRoutes } from './routes/upload-quota.ts';
import { petQueryRoutes } from './routes/pets.ts';
import { calculatorQueryRoutes } from './routes/calculators.ts';
import { respiratoryRateQueryRoutes } from './routes/respiratory-rate.ts';
import { bodyConditionQueryRoutes } from './routes/body-condition.ts';
import { adminModerationRoutes } from './routes/admin/moderation.ts';
import { petCareTipsQueryRoutes } from './routes/pet-care-tips.ts';
import { petMediaFileRoutes } from './routes/pet-media-files.ts';

export type QueryApiOptions = Omit<QueryApiDeps, 'catchUp'> & {
  /** The audit routes (admin) read the log itself. */
  eventStore: Pick<EventStore, 'headPosition' | 'readAll' | 'readStream'>;
  writePositions: WritePositions;
  readYourWritesTimeoutMs: number;
};

/** The query routes' options as every process that serves them takes them from its configuration and adapters. */
export const queryApiOptionsOf = (config: Config, adapters: Adapters): QueryApiOptions => ({
  readStore: adapters.readStore,
  eventStore: adapters.eventStore,
  writePositions: adapters.writePositions,
  readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
  images: imageSettingsOf(config, adapters.blobs),
});

/** Every read operation of the API (register under /v1); answers from read models only. */
export const queryApi =
  (options: QueryApiOptions): FastifyPluginAsync =>
  async (app) => {
    const deps: QueryApiDeps = {
      readStore: options.readStore,
      images: options.images,
      catchUp: async () => {
        const head = await options.eventStore.headPosition();
        await options.readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, head, options.readYourWritesTimeoutMs);
      },
    };
    registerReadYourWrites(app, {
      readStore: options.readStore,
      writePositions: options.writePositions,
      projections: READ_MODEL_PROJECTIONS,
      timeoutMs: options.readYourWritesTimeoutMs,
    });
    await app.register(voteQueryRoutes(deps));
    await app.register(favouriteQueryRoutes(deps));
    await app.register(accountQueryRoutes(deps));
    await app.register(webhookQueryRoutes(deps));
    await app.register(factQueryRoutes(deps));
    await app.register(healthTipQueryRoutes(deps));
    await app.register(breedQueryRoutes(deps));
    await app.register(categoryQueryRoutes(deps));
    await app.register(legislationQueryRoutes(deps));
    await app.register(adminStreamRoutes({ eventStore: options.eventStore }));
    await app.register(adminEventRoutes({ eventStore: options.eventStore }));
    await app.register(adminExportRoutes({ eventStore: options.eventStore }));
    await app.register(imageQueryRoutes(deps));
    await app.register(imageSimilarRoutes(deps));
    await app.register(imagePipelineQueryRoutes(deps));
    await app.register(imageFileRoutes(deps));
    await app.register(uploadQuotaQueryRoutes(deps));
    await app.register(petQueryRoutes(deps));
    await app.register(calculatorQueryRoutes(deps));
    await app.register(respiratoryRateQueryRoutes(deps));
    await app.register(bodyConditionQueryRoutes(deps));
    await app.register(adminModerationRoutes(deps));
    await app.register(petCareTipsQueryRoutes(deps));
    await app.register(petMediaFileRoutes(deps));
  };
