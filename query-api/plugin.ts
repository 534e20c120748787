import type { FastifyPluginAsync } from 'fastify';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { registerReadYourWrites } from '../http/consistency.ts';
import type { WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { QueryApiDeps } from './deps.ts';
import { voteQueryRoutes } from './routes/votes.ts';
import { favouriteQueryRoutes } from './routes/favourites.ts';
import { accountQueryRoutes } from './routes/accounts.ts';
import { webhookQueryRoutes } from './routes/webhooks.ts';
import { factQueryRoutes } from './routes/facts.ts';
import { healthTipQueryRoutes } from './routes/health-tips.ts';
import { breedQueryRoutes } from './routes/breeds.ts';
import { categoryQueryRoutes } from './routes/categories.ts';
import { legislationQueryRoutes } from './routes/legislation.ts';

export type QueryApiOptions = QueryApiDeps & { writePositions: WritePositions; readYourWritesTimeoutMs: number };

/** Every read operation of the API (register under /v1); answers from read models only. */
export const queryApi =
  (options: QueryApiOptions): FastifyPluginAsync =>
  async (app) => {
    registerReadYourWrites(app, {
      readStore: options.readStore,
      writePositions: options.writePositions,
      projections: READ_MODEL_PROJECTIONS,
      timeoutMs: options.readYourWritesTimeoutMs,
    });
    await app.register(voteQueryRoutes(options));
    await app.register(favouriteQueryRoutes(options));
    await app.register(accountQueryRoutes(options));
    await app.register(webhookQueryRoutes(options));
    await app.register(factQueryRoutes(options));
    await app.register(healthTipQueryRoutes(options));
    await app.register(breedQueryRoutes(options));
    await app.register(categoryQueryRoutes(options));
    await app.register(legislationQueryRoutes(options));
  };
