import { Collections, type ApiKeyDoc } from '../contracts/read-models.ts';
import { blobKeysFor, imageStream, type ImageEvent, type ImageLabelled, type ImageUploaded } from '../domain/images/image.ts';
import { newEventId, randomId, sha256 } from '../infrastructure/ids.ts';
import type { TestService } from './service.ts';

/** The account an API key belongs to (from the accounts read model). */
export const accountIdOfKey = async (service: TestService, key: string): Promise<string> => {
  const found = await service.adapters.readStore.collection<ApiKeyDoc>(Collections.apiKeys).get(sha256(key));
  if (!found) throw new Error('unknown key');
  return found.account_id;
};

export type SeedImage = Partial<ImageUploaded['data']> & {
  /** Appends ImageValidated (clean) and ImageLabelled with these fields. */
  labelled?: Partial<ImageLabelled['data']>;
};

/** An upload's event data as the upload route records it (a 640 × 480 JPEG), with `upload` over it. */
export const uploadData = (accountId: string, upload: Partial<ImageUploaded['data']> = {}): ImageUploaded['data'] => {
  const imageId = upload.image_id ?? randomId(9);
  return {
    image_id: imageId,
    account_id: accountId,
    sub_id: null,
    original_filename: `${imageId}.jpg`,
    mime_type: 'image/jpeg',
    format: 'jpg',
    width: 640,
    height: 480,
    bytes: 1000,
    age_months: null,
    breed_ids: [],
    url_token: randomId(24),
    blob_keys: blobKeysFor(imageId),
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: new Date().toISOString(),
    ...upload,
  };
};

/**
 * An image as the upload route would record it, appended straight to the event store (the query
 * side's tests do not depend on the upload pipeline). The account's write position is recorded,
 * so its next read waits for the projections as after a real upload.
 */
export const seedImage = async (service: TestService, accountId: string, seed: SeedImage = {}): Promise<string> => {
  const { labelled, ...upload } = seed;
  const data = uploadData(accountId, upload);
  const imageId = data.image_id;
  const now = data.created_at;
  const events: ImageEvent[] = [{ type: 'ImageUploaded', data }];
  if (labelled) {
    events.push({
      type: 'ImageValidated',
      data: { image_id: imageId, account_id: accountId, verdict: 'clean', unsafe_reasons: [], moderation_labels: [], scores: {}, threshold: 0.7, model: 'fixture', validated_at: now },
    });
    events.push({
      type: 'ImageLabelled',
      data: {
        image_id: imageId,
        account_id: accountId,
        labels: [],
        species_id: null,
        suggested_breed_ids: [],
        tags: [],
        colour_ids: [],
        colour_codes: [],
        orientation: 'landscape',
        child_image_ids: [],
        vendor: 'fixture',
        labelled_at: now,
        ...labelled,
      },
    });
  }
  const metadata = { account_id: accountId, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: now, schema_version: 1 };
  const result = await service.adapters.eventStore.append(
    imageStream(imageId),
    events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
    { expectedRevision: 'no_stream' },
  );
  // Under its kind, as an upload records it: answers that embed the caller's images wait for it.
  await service.adapters.writePositions.record(accountId, result.position, 'images');
  return imageId;
};
