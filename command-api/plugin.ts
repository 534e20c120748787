import type { FastifyPluginAsync } from 'fastify';
import type { CommandApiDeps } from './deps.ts';
import { voteCommandRoutes } from './routes/votes.ts';
import { favouriteCommandRoutes } from './routes/favourites.ts';
import { accountCommandRoutes } from './routes/accounts.ts';
import { adminAccountRoutes } from './routes/admin/accounts.ts';
import { webhookCommandRoutes } from './routes/webhooks.ts';
import { adminWebhookRoutes } from './routes/admin/webhooks.ts';
import { imageRecordCommandRoutes } from './routes/image-records.ts';
import { imageCommandRoutes } from './routes/images.ts';
import { adminQuotaRoutes } from './routes/admin/quota.ts';
import { petCommandRoutes } from './routes/pets.ts';
import { respiratoryRateCommandRoutes } from './routes/respiratory-rate.ts';
import { petAnalysisCommandRoutes } from './routes/pet-analyses.ts';
import { bodyConditionCommandRoutes } from './routes/body-condition.ts';
import { petPortraitCommandRoutes } from './routes/pet-portrait.ts';

/** Every write operation of the API (register under /v1). */
export const commandApi =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (app) => {
    await app.register(voteCommandRoutes(deps));
    await app.register(favouriteCommandRoutes(deps));
    await app.register(accountCommandRoutes(deps));
    await app.register(adminAccountRoutes(deps));
    await app.register(webhookCommandRoutes(deps));
    await app.register(adminWebhookRoutes(deps));
    await app.register(imageRecordCommandRoutes(deps));
    await app.register(imageCommandRoutes(deps));
    await app.register(adminQuotaRoutes(deps));
    await app.register(petCommandRoutes(deps));
    await app.register(respiratoryRateCommandRoutes(deps));
    await app.register(petAnalysisCommandRoutes(deps));
    await app.register(bodyConditionCommandRoutes(deps));
    await app.register(petPortraitCommandRoutes(deps));
  };
