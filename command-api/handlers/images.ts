import { DomainError } from '../../domain/errors.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { imageStream, type ImageUploaded } from '../../domain/images/image.ts';
import { deleteImageBlobs, storeImageBlobs } from '../../infrastructure/images/blobs.ts';
import { monthOf, quotaDecider, quotaStream, type QuotaState } from '../../domain/quota/quota.ts';
import {
  appendDecided,
  contentionError,
  currentState,
  decideOn,
  handleCommand,
  streamStates,
  type CommandContext,
  type StreamStates,
} from '../../infrastructure/event-store/command-handler.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { processUpload, type DecodeMemory } from '../../infrastructure/images/process-upload.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { isWrongExpectedRevision, type EventStore } from '../../infrastructure/event-store/port.ts';

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
 * An upload, in the order that keeps the guarantees:
 * 1. check and decode the bytes (a bad file costs no quota);
 * 2. decide the reservation of one unit of the month's quota on the account's quota stream as it
 *    stands (an upload over its quota is refused here: nothing stored);
 * 3. store the blobs;
 * 4. append the reservation, at the quota stream's revision it was decided on, and ImageUploaded
 *    together (`appendDecided`): one commit to wait for, and on the embedded store all or none.
 *
 * A racing upload of the same account that reserved first makes the append fail on the quota
 * stream: the reservation is decided again on the new state (the blobs stay), and should the quota
 * be used up by then, the blobs are removed and the upload refused — the only case where an upload
 * over its quota stored bytes, for a moment, under a key nothing names. Should the append fail
 * otherwise, the blobs are removed, and a reservation that stands (EventStoreDB appends the
 * streams one after the other, so the first may stand when the second fails) is given back.
 */
export const uploadImage = async (
  settings: UploadSettings,
  accountId: string,
  input: UploadInput,
  context: CommandContext,
): Promise<{ data: ImageUploaded['data']; position: bigint | null }> => {
  const store = settings.eventStore;
  const image = await processUpload(input.bytes, { width: input.width, height: input.height }, settings.decodeMemory);
  const imageId = randomId(9);
  const now = new Date().toISOString();
  const quota = quotaStream(accountId);
  const states = quotaStates(store) as StreamStates<QuotaState>;
  const reserve = { type: 'ReserveUpload', account_id: accountId, image_id: imageId, default_quota: settings.uploadQuota, now } as const;
  const decideReservation = async () => {
    const folded = await currentState(store, quota, quotaDecider, states);
    return { folded, reserved: decideOn(quota, quotaDecider, reserve, folded) };
  };
  /** Set once storing began: a store that failed half-way has left some of the blobs. */
  let storing = false;
  /** Set once an append was tried: EventStoreDB may have kept its reservation alone. */
  let appending = false;
  try {
    // Over the quota: refused here, before anything is stored.
    let { folded, reserved } = await decideReservation();
    storing = true;
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
    const uploaded = decideOn(imageStream(imageId), imageDecider, { type: 'UploadImage', data }, { state: imageDecider.initialState(), revision: null });
    let lastConflictAt: bigint | null | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        appending = true;
        const [, position] = await appendDecided(store, [reserved, uploaded], context);
        states.set(quota, { state: reserved.state, revision: folded.revision === null ? 0n : folded.revision + 1n });
        return { data, position };
      } catch (error) {
        if (!isWrongExpectedRevision(error) || error.streamName !== quota) throw error;
        // Another upload of the account reserved first: decided again on its state (as handleCommand
        // does; a conflict again at the same revision means the cache is not the stream's prefix).
        if (folded.revision === lastConflictAt) states.delete(quota);
        lastConflictAt = folded.revision;
        if (attempt >= QUOTA_RETRIES) throw contentionError(quota, attempt + 1);
        ({ folded, reserved } = await decideReservation());
      }
    }
  } catch (error) {
    if (storing) await deleteImageBlobs(settings.blobs, imageId);
    if (appending && !(error instanceof DomainError)) await releaseIfReserved(store, accountId, imageId, monthOf(now), context);
    throw error;
  }
};

/**
 * Gives back the unit reserved for `imageId` if its reservation stands (EventStoreDB may have
 * appended it before the image's append failed); nothing when it does not. Best effort: a store
 * that cannot be read now leaves the unit spent, as any write the store lost would.
 */
const releaseIfReserved = async (store: EventStore, accountId: string, imageId: string, month: string, context: CommandContext): Promise<void> => {
  const quota = quotaStream(accountId);
  quotaStates(store).delete(quota);
  try {
    const events = await store.readStream(quota, { direction: 'backwards', maxCount: 1000 });
    const mine = events.filter((event) => (event.data as { image_id?: string }).image_id === imageId).map((event) => event.type);
    if (!mine.includes('UploadQuotaReserved') || mine.includes('UploadQuotaReleased')) return;
    await handleCommand(store, quota, quotaDecider, { type: 'ReleaseUpload', account_id: accountId, image_id: imageId, month, now: new Date().toISOString() }, context, {
      retries: QUOTA_RETRIES,
      states: quotaStates(store),
    });
  } catch {
    // left spent (see above)
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
