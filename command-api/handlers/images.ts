import { DomainError } from '../../domain/errors.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { imageStream, type ImageUploaded } from '../../domain/images/image.ts';
import { deleteImageBlobs, storeImageBlobs } from '../../infrastructure/images/blobs.ts';
import { monthOf, quotaDecider, quotaStream, type QuotaState } from '../../domain/quota/quota.ts';
import { handleCommand, streamStates, type CommandContext, type StreamStates } from '../../infrastructure/event-store/command-handler.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { processUpload } from '../../infrastructure/images/process-upload.ts';
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

export type UploadSettings = { eventStore: EventStore; blobs: BlobStore; uploadQuota: number };

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
  const image = await processUpload(input.bytes, { width: input.width, height: input.height });
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

/** Decodes `type=base64` input: a data URL or bare base64 (standard or url-safe alphabet, whitespace ignored). */
export const decodeBase64Image = (value: string): Buffer => {
  let payload = value.trim();
  const dataUrl = /^data:([^;,]*)(;[^,]*)?,/i.exec(payload);
  if (dataUrl) {
    if (!/;base64/i.test(dataUrl[2] ?? '')) throw new DomainError('validation_failed', 'image: a data URL must be base64-encoded', { details: ['body.image must be a base64 data URL'] });
    payload = payload.slice(dataUrl[0].length);
  }
  // Node's base64 decoder reads both alphabets and skips whitespace, so nothing has to be rewritten
  // before it (each rewrite was a copy of the whole upload); but it skips anything else silently
  // too. Common case first, without scanning the text: a length that is a multiple of four that
  // decodes to every byte it can hold has no character the decoder skipped (one skipped character
  // always costs a byte there), so it is valid. Anything else is checked character by character.
  if (payload.length % 4 === 0) {
    const decoded = Buffer.from(payload, 'base64');
    if (decoded.length === Buffer.byteLength(payload, 'base64')) return decoded;
  }
  if (!/^[A-Za-z0-9+/_\s-]*(?:=\s*){0,2}$/.test(payload)) {
    throw new DomainError('validation_failed', 'image is not valid base64', { details: ['body.image must be base64 or a base64 data URL'] });
  }
  return Buffer.from(payload, 'base64');
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
