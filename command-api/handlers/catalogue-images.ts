import { accountDecider } from '../../domain/accounts/decide.ts';
import { accountStream, CATALOGUE_ACCOUNT_ID } from '../../domain/accounts/account.ts';
import { catalogueDecider } from '../../domain/images/catalogue.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { imageStream, type ImageUploaded } from '../../domain/images/image.ts';
import type { ImageAttribution } from '../../domain/images/attribution.ts';
import { isDomainError } from '../../domain/errors.ts';
import { deleteImageBlobs, storeImageBlobs } from '../../infrastructure/images/blobs.ts';
import { handleCommand, stateOf, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from '../../infrastructure/event-store/port.ts';
import { randomId } from '../../infrastructure/ids.ts';
import type { ProcessedImage } from '../../infrastructure/images/process-upload.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';

/**
 * Uploads of the catalogue account (the photo import, runtime/image-import/): the same
 * ImageUploaded as any upload, with three differences. The image id is derived from the photo's
 * content (SHA-256), so the same photo imported twice names the same stream and a re-run finds
 * it; no quota is reserved (the catalogue account has none and costs no customer's); and the
 * upload may ask to be made public once the pipeline has found it safe (`public_when_safe`), which
 * the image decider allows for the catalogue account only and only with a licence.
 */

/** The image id of a catalogue photo: 18 bytes of its content hash, base64url (24 characters). */
export const catalogueImageId = (sha256Hex: string): string => Buffer.from(sha256Hex, 'hex').subarray(0, 18).toString('base64url');

/** Opens the catalogue account when it is not there yet (AccountOpened, kind catalogue); otherwise appends nothing. */
export const ensureCatalogueAccount = async (store: EventStore, context: CommandContext): Promise<void> => {
  await handleCommand(store, accountStream(CATALOGUE_ACCOUNT_ID), accountDecider, { type: 'OpenCatalogueAccount', now: new Date().toISOString() }, {
    ...context,
    accountId: CATALOGUE_ACCOUNT_ID,
  });
};

export type CatalogueUploadInput = {
  sha256: string;
  image: ProcessedImage;
  original_filename: string | null;
  sub_id: string | null;
  breed_ids: string[];
  attribution: ImageAttribution | null;
  /** Made public once safe and labelled (needs a licence). */
  public: boolean;
};

/**
 * Stores the photo's sizes and appends its ImageUploaded on `image-<catalogueImageId>`. Answers
 * `exists` (appending nothing) when that stream is already there: the photo was imported before,
 * by an earlier run or by another file of this one with the same bytes. The blobs of an existing
 * image are never removed (its keys are the same); those of a failed first append are.
 */
export const uploadCatalogueImage = async (
  settings: { eventStore: EventStore; blobs: BlobStore },
  input: CatalogueUploadInput,
  context: CommandContext,
): Promise<{ status: 'uploaded'; data: ImageUploaded['data'] } | { status: 'exists'; imageId: string }> => {
  const imageId = catalogueImageId(input.sha256);
  const stream = imageStream(imageId);
  if ((await settings.eventStore.readStream(stream, { maxCount: 1 })).length > 0) return { status: 'exists', imageId };
  const account = await stateOf(settings.eventStore, accountStream(CATALOGUE_ACCOUNT_ID), accountDecider);
  const now = new Date().toISOString();
  const blobKeys = await storeImageBlobs(settings.blobs, imageId, input.image);
  const data: ImageUploaded['data'] = {
    image_id: imageId,
    account_id: CATALOGUE_ACCOUNT_ID,
    sub_id: input.sub_id,
    original_filename: input.original_filename,
    mime_type: input.image.mime,
    format: input.image.format,
    width: input.image.width,
    height: input.image.height,
    bytes: input.image.sizes.full.length,
    age_months: null,
    breed_ids: input.breed_ids,
    url_token: randomId(24),
    blob_keys: blobKeys,
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: now,
    attribution: input.attribution,
    ...(input.public ? { public_when_safe: true } : {}),
  };
  try {
    await handleCommand(
      settings.eventStore,
      stream,
      imageDecider,
      { type: 'UploadImage', data, uploader: account.state.status === 'none' ? 'customer' : account.state.kind },
      { ...context, accountId: CATALOGUE_ACCOUNT_ID },
      { newStream: true },
    );
  } catch (error) {
    // The same bytes were appended meanwhile (another file of this run): that image keeps its blobs.
    if (isWrongExpectedRevision(error) || (isDomainError(error) && error.code === 'conflict')) return { status: 'exists', imageId };
    await deleteImageBlobs(settings.blobs, imageId);
    throw error;
  }
  return { status: 'uploaded', data };
};

/** Makes a catalogue image public once it is safe and labelled (ImagePublished; nothing when it already is). */
export const publishCatalogueImage = async (store: EventStore, imageId: string, context: CommandContext): Promise<boolean> => {
  const result = await handleCommand(store, imageStream(imageId), catalogueDecider, { type: 'PublishCatalogueImage', now: new Date().toISOString() }, {
    ...context,
    accountId: CATALOGUE_ACCOUNT_ID,
  });
  return result.events.length > 0;
};
