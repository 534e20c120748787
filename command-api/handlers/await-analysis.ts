import { DomainError } from '../../domain/errors.ts';
import { imageEvents, imageStream, type ImageEvent, type ImageLabelled, type ImageUploaded, type ImageValidated } from '../../domain/images/image.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { decodeAll } from '../../infrastructure/event-store/recorded.ts';
import type { UploadedImage } from '../../contracts/image-uploads.ts';

const POLL_MS = 100;

type Folded = { uploaded: ImageUploaded['data']; validated: ImageValidated['data'] | null; labelled: ImageLabelled['data'] | null; position: bigint | null };

const readImage = async (store: EventStore, imageId: string): Promise<Folded | null> => {
  const recorded = await store.readStream(imageStream(imageId));
  const events: ImageEvent[] = decodeAll(imageEvents, recorded);
  const uploaded = events.find((event): event is ImageUploaded => event.type === 'ImageUploaded');
  if (!uploaded) return null;
  return {
    uploaded: uploaded.data,
    validated: events.find((event): event is ImageValidated => event.type === 'ImageValidated')?.data ?? null,
    labelled: events.find((event): event is ImageLabelled => event.type === 'ImageLabelled')?.data ?? null,
    position: recorded.at(-1)?.position ?? null,
  };
};

const statusOf = (image: Folded): UploadedImage['status'] => (image.labelled ? 'labelled' : (image.validated?.verdict ?? 'to_be_reviewed'));

/**
 * upload-sync: waits (polling the image's own stream, bounded by `timeoutMs`) until the pipeline
 * has labelled the image; answers the labelling and its position in the store (the route renders
 * the image from the read model once the projection has reached it). Past the deadline it
 * answers 503 analysis_unavailable carrying the image id: the upload is kept and its processing
 * finishes in the background — never an invented result.
 */
export const awaitAnalysis = async (
  store: EventStore,
  imageId: string,
  timeoutMs: number,
): Promise<{ labelled: ImageLabelled['data']; validated: ImageValidated['data'] | null; position: bigint | null }> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const image = await readImage(store, imageId);
    if (image?.labelled) return { labelled: image.labelled, validated: image.validated, position: image.position };
    if (Date.now() >= deadline) {
      throw new DomainError('analysis_unavailable', `the analysis of image ${imageId} did not finish in ${timeoutMs} ms; it continues in the background`, {
        extra: { image_id: imageId, status: image ? statusOf(image) : 'to_be_reviewed', links: { status: `/v1/images/${imageId}/status` } },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
};
