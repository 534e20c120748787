import { Collections, type UsageKind, type UsageRecordDoc } from '../contracts/read-models.ts';
import { favouriteEvents } from '../domain/favourites/favourite.ts';
import { imageEvents } from '../domain/images/image.ts';
import { petEvents } from '../domain/pets/pet.ts';
import { voteEvents } from '../domain/votes/vote.ts';
import { defineProjection } from './projection.ts';

/**
 * The event that creates each kind of record, and the id of the record in its data. Deletes are
 * not listed on purpose: usage counts records created in a window, whatever became of them.
 * Images and pets are counted from their creation events (`ImageUploaded`, `PetRegistered`) once
 * those land; their sub_id is the event's `sub_id` (a pet's may sit in its `profile`).
 */
const CREATIONS: Record<string, { kind: UsageKind; id: (data: Record<string, unknown>) => unknown }> = {
  VoteCast: { kind: 'votes', id: (data) => data.vote_id },
  FavouriteAdded: { kind: 'favourites', id: (data) => data.favourite_id },
  ImageUploaded: { kind: 'images', id: (data) => data.image_id },
  PetRegistered: { kind: 'pets', id: (data) => data.pet_id },
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** One usage record per created vote, favourite, image and pet (never deleted). */
export const usageProjection = defineProjection({
  name: 'usage',
  collections: [Collections.usageRecords],
  streams: [voteEvents, favouriteEvents, imageEvents, petEvents],
  async setup(store) {
    // GET /accounts/usage: the account's records created in a date window.
    await store.collection(Collections.usageRecords).createIndex({ account_id: 1, created_at: 1 });
  },
  async apply(recorded, store) {
    const creation = CREATIONS[recorded.type];
    if (!creation) return;
    const data: Record<string, unknown> = recorded.data;
    // A child image cropped by auto-crop is not an upload (nor charged to the quota).
    if (recorded.type === 'ImageUploaded' && data.parent_image_id) return;
    const id = creation.id(data);
    const accountId = text(data.account_id) ?? recorded.metadata.account_id;
    if (id === undefined || id === null || !accountId) return;
    const profile = (data.profile ?? {}) as Record<string, unknown>;
    await store.collection<UsageRecordDoc>(Collections.usageRecords).upsert(
      {
        _id: `${creation.kind}:${String(id)}`,
        kind: creation.kind,
        account_id: accountId,
        sub_id: text(data.sub_id) ?? text(profile.sub_id),
        created_at: text(data.created_at) ?? text(data.registered_at) ?? text(data.uploaded_at) ?? recorded.metadata.timestamp,
      },
      recorded.position,
    );
  },
});
