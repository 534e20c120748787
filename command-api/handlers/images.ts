import { DomainError } from '../../domain/errors.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { imageStream, type ImageUploaded } from '../../domain/images/image.ts';
import { deleteImageBlobs, storeImageBlobs } from '../../infrastructure/images/blobs.ts';
import { monthOf, quotaDecider, quotaStream, type QuotaState } from '../../domain/quota/quota.ts';
import { handleCommand, streamStates, type CommandContext, type StreamStates } from '../../infrastructure/event-store/command-handler.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { processUpload, type DecodeMemory } from '../../infrastructure/images/process-upload.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';

export type UploadInput = {
  bytes: Buffer;
  original_filename: string | null;
  sub_id: string | null;
  breed_ids: string[];
  width?: number;
  height?: number;
  age_months: number | null;
  auto_crop: boolean;
};

export type UploadSettings = { eventStore: EventStore; blobs: BlobStore; uploadQuota: number; decodeMemory?: DecodeMemory };

/** Concurrent uploads of one account race on its quota stream: enough retries for a burst. */
const QUOTA_RETRIES = 50;

/** The accounts' quota streams grow by an event per upload: each upload reads only what came after the cached state (per store). */
const quotaStatesByStore = new WeakMap<EventStore, StreamStates<unknown>>();
const quotaStates = (store: EventStore): StreamStates<unknown> => {
  let states = quotaStatesByStore.get(store);
  if (!states) quotaStatesByStore.set(store, (states = streamStates<QuotaState>() as StreamStates<unknown>));
  return states;
};

/**
 * An upload, in the order that keeps the guarantees: check and decode the bytes (a bad file costs
 * no quota), reserve one unit of the month's quota on the account's quota stream (expected
 * revision: racing uploads cannot overdraw it; beyond it nothing is stored), store the blobs,
 * append ImageUploaded. Should storing or appending fail after the reservation, the unit is given
 * back and the blobs removed.
 */
export const uploadImage = async (
  settings: UploadSettings,
  accountId: string,
  input: UploadInput,
  context: CommandContext,
): Promise<{ data: ImageUploaded['data']; position: bigint | null }> => {
  const image = await processUpload(input.bytes, { width: input.width, height: input.height }, settings.decodeMemory);
  const imageId = randomId(9);
  const now = new Date().toISOString();
  await handleCommand(
    settings.eventStore,
    quotaStream(accountId),
    quotaDecider,
    { type: 'ReserveUpload', account_id: accountId, image_id: imageId, default_quota: settings.uploadQuota, now },
    context,
    { retries: QUOTA_RETRIES, states: quotaStates(settings.eventStore) },
  );
  try {
    const blobKeys = await storeImageBlobs(settings.blobs, imageId, image);
    const data: ImageUploaded['data'] = {
      image_id: imageId,
      account_id: accountId,
      sub_id: input.sub_id,
      original_filename: input.original_filename,
      mime_type: image.mime,
      format: image.format,
      width: image.width,
      height: image.height,
      bytes: image.sizes.full.length,
      age_months: input.age_months,
      breed_ids: input.breed_ids,
      url_token: randomId(24),
      blob_keys: blobKeys,
      auto_crop: input.auto_crop,
      parent_image_id: null,
      crop_box: null,
      created_at: now,
    };
    const result = await handleCommand(settings.eventStore, imageStream(imageId), imageDecider, { type: 'UploadImage', data }, context, { newStream: true });
    return { data, position: result.position };
  } catch (error) {
    await deleteImageBlobs(settings.blobs, imageId);
    await handleCommand(
      settings.eventStore,
      quotaStream(accountId),
      quotaDecider,
      { type: 'ReleaseUpload', account_id: accountId, image_id: imageId, month: monthOf(now), now: new Date().toISOString() },
      context,
      { retries: QUOTA_RETRIES, states: quotaStates(settings.eventStore) },
    ).catch(() => undefined);
    throw error;
  }
};

export const breedIdsOf = (value: string | string[] | undefined): string[] => {
  const list = value === undefined ? [] : Array.isArray(value) ? value : value.split(',');
  const ids = [...new Set(list.map((id) => id.trim()).filter((id) => id.length > 0))];
  const bad = ids.filter((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id));
  if (bad.length > 0 || ids.length > 20) {
    throw new DomainError('validation_failed', 'breed_ids must be at most 20 breed ids', { details: ['body.breed_ids must be up to 20 ids of letters, digits, - and _'] });
  }
  return ids;
};
