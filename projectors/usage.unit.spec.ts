import { describe, expect, it } from 'vitest';
import { Collections, type UsageRecordDoc } from '../contracts/read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { usageProjection } from './usage.ts';

let position = 0n;
const recorded = (streamName: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${++position}`,
  type,
  data,
  metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: '2026-01-02T03:04:05.000Z', schema_version: 1 },
  streamName,
  revision: 0n,
  position,
});

describe('the usage projection', () => {
  it('keeps one record per creation of every kind, and deletes leave it in place', async () => {
    const store = embeddedReadStore();
    const events = [
      recorded('vote-1', 'VoteCast', { vote_id: 1, account_id: 'a', sub_id: 'u1', created_at: '2026-01-01T00:00:00.000Z' }),
      recorded('vote-1', 'VoteDeleted', { vote_id: 1, account_id: 'a', deleted_at: '2026-01-01T01:00:00.000Z' }),
      recorded('favourite-7', 'FavouriteAdded', { favourite_id: 7, account_id: 'a', sub_id: null, created_at: '2026-01-01T02:00:00.000Z' }),
      recorded('favourite-7', 'FavouriteDeleted', { favourite_id: 7, account_id: 'a', deleted_at: '2026-01-01T03:00:00.000Z' }),
      recorded('image-x', 'ImageUploaded', { image_id: 'x', account_id: 'a', sub_id: 'u2', created_at: '2026-01-01T04:00:00.000Z' }),
      recorded('pet-p', 'PetRegistered', { pet_id: 'p', account_id: 'b', profile: { sub_id: 'owner' }, registered_at: '2026-01-01T05:00:00.000Z' }),
      recorded('pet-p', 'PetRemoved', { pet_id: 'p', account_id: 'b', removed_at: '2026-01-01T06:00:00.000Z' }),
    ];
    for (const event of [...events, ...events]) await usageProjection.apply(event, store);
    const records = await store.collection<UsageRecordDoc>(Collections.usageRecords).find({}, { sort: { _id: 1 } });
    expect(records.map(({ _id, kind, account_id, sub_id, created_at }) => ({ _id, kind, account_id, sub_id, created_at }))).toEqual([
      { _id: 'favourites:7', kind: 'favourites', account_id: 'a', sub_id: null, created_at: '2026-01-01T02:00:00.000Z' },
      { _id: 'images:x', kind: 'images', account_id: 'a', sub_id: 'u2', created_at: '2026-01-01T04:00:00.000Z' },
      { _id: 'pets:p', kind: 'pets', account_id: 'b', sub_id: 'owner', created_at: '2026-01-01T05:00:00.000Z' },
      { _id: 'votes:1', kind: 'votes', account_id: 'a', sub_id: 'u1', created_at: '2026-01-01T00:00:00.000Z' },
    ]);
  });
});
