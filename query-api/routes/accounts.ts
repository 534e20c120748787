import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CapabilityList, FeatureList, Usage, UsageQuery } from '../../contracts/accounts.ts';
import { errors } from '../../contracts/common.ts';
import { Collections, type FavouriteDoc, type VoteDoc, type ImageDoc } from '../../contracts/read-models.ts';
import { ALL_FEATURES, Features } from '../../domain/accounts/features.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { setPaginationHeaders } from '../../http/paging.ts';
import type { Filter } from '../../infrastructure/read-store/port.ts';
import type { QueryApiDeps } from '../deps.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `2024-05-01` as a start means its first instant, as an end its last. */
const toInstant = (value: string, edge: 'start' | 'end'): string =>
  DATE_ONLY.test(value) ? `${value}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z` : new Date(value).toISOString();

type UsageRow = { sub_id: string | null; images: number; votes: number; favourites: number; pets: number };

export const accountQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/accounts/features',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Every feature of the service and whether your account has it',
          response: { 200: FeatureList, ...errors() },
        },
      },
      async (request) => {
        const account = accountOf(request);
        return ALL_FEATURES.map((name) => ({ name, description: Features[name], enabled: account.features.has(name) }));
      },
    );

    app.get(
      '/accounts/capabilities',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Your features and whether each is switched on',
          response: { 200: CapabilityList, ...errors() },
        },
      },
      async (request) => {
        const account = accountOf(request);
        return ALL_FEATURES.filter((name) => account.features.has(name)).map((name) => ({
          name,
          enabled: !account.switchedOff.has(name),
        }));
      },
    );

    app.get(
      '/accounts/usage',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Activity per sub_id (images, votes, favourites, pets) in a date window',
          querystring: UsageQuery,
          response: { 200: Type.Array(Usage), ...errors() },
        },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const { start_date, end_date, limit, page } = request.query;
        const created: Filter = {};
        const range: Record<string, string> = {};
        if (start_date) range.$gte = toInstant(start_date, 'start');
        if (end_date) range.$lte = toInstant(end_date, 'end');
        if (range.$gte && range.$lte && range.$gte > range.$lte) {
          throw new DomainError('validation_failed', 'start_date is after end_date', { details: ['query.start_date must not be after query.end_date'] });
        }
        if (Object.keys(range).length > 0) created.created_at = range;
        const filter = { account_id: account.id, ...created };
        const rows = new Map<string | null, UsageRow>();
        const row = (subId: string | null) => {
          let found = rows.get(subId);
          if (!found) rows.set(subId, (found = { sub_id: subId, images: 0, votes: 0, favourites: 0, pets: 0 }));
          return found;
        };
        for (const vote of await deps.readStore.collection<VoteDoc>(Collections.votes).find(filter)) row(vote.sub_id).votes += 1;
        // Uploads only: child images cropped by auto-crop are not counted (nor charged to the quota).
        for (const image of await deps.readStore.collection<ImageDoc>(Collections.images).find({ ...filter, parent_image_id: null })) {
          row(image.sub_id).images += 1;
        }
        for (const favourite of await deps.readStore.collection<FavouriteDoc>(Collections.favourites).find(filter)) {
          row(favourite.sub_id).favourites += 1;
        }
        const all = [...rows.values()].sort((a, b) => (a.sub_id ?? '').localeCompare(b.sub_id ?? ''));
        setPaginationHeaders(reply, all.length, page, limit);
        return all.slice(page * limit, page * limit + limit);
      },
    );
  };
