import { DomainError } from '../../domain/errors.ts';
import { imageStream, type ImageEvent, type ImageLabelled, type ImageUploaded, type ImageValidated } from '../../domain/images/image.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { uploadedImageResource, type AnalysedImage, type UploadedImage } from '../../contracts/image-uploads.ts';

const POLL_MS = 100;

type Folded = { uploaded: ImageUploaded['data']; validated: ImageValidated['data'] | null; labelled: ImageLabelled['data'] | null };

const readImage = async (store: EventStore, imageId: string): Promise<Folded | null> => {
  const events = (await store.readStream(imageStream(imageId))) as unknown as ImageEvent[];
  const uploaded = events.find((event): event is ImageUploaded => event.type === 'ImageUploaded');
  if (!uploaded) return null;
  return {
    uploaded: uploaded.data,
    validated: events.find((event): event is ImageValidated => event.type === 'ImageValidated')?.data ?? null,
    labelled: events.find((event): event is ImageLabelled => event.type === 'ImageLabelled')?.data ?? null,
  };
};

const statusOf = (image: Folded): UploadedImage['status'] => (image.labelled ? 'labelled' : (image.validated?.verdict ?? 'to_be_reviewed'));

/**
 * upload-sync: waits (polling the image's own stream, bounded by `timeoutMs`) until the pipeline
 * has labelled the image, then answers it with its analysis and child images. Past the deadline
 * it answers 503 analysis_unavailable carrying the image id: the upload is kept and its
 * processing finishes in the background — never an invented result.
 */
export const awaitAnalysis = async (store: EventStore, imageId: string, timeoutMs: number, baseUrl: string): Promise<AnalysedImage> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const image = await readImage(store, imageId);
    if (image?.labelled) {
      const labelled = image.labelled;
      const childImages: AnalysedImage['childImages'] = [];
      for (const childId of labelled.child_image_ids) {
        const child = await readImage(store, childId);
        if (!child) continue;
        childImages.push({
          ...uploadedImageResource(child.uploaded, statusOf(child), baseUrl),
          parent_image_id: imageId,
          crop_box: child.uploaded.crop_box ?? { left: 0, top: 0, width: 1, height: 1 },
        });
      }
      return {
        ...uploadedImageResource(image.uploaded, 'labelled', baseUrl),
        species_id: labelled.species_id,
        suggested_breed_ids: labelled.suggested_breed_ids,
        suggested_breeds: labelled.suggested_breeds ?? labelled.suggested_breed_ids.map((id) => ({ id, confidence: null })),
        duplicate_of: labelled.duplicate_of ?? null,
        tags: labelled.tags,
        colours: labelled.colour_ids.map((id, index) => ({ id, code: labelled.colour_codes[index] ?? '' })),
        orientation: labelled.orientation,
        unsafe_reasons: image.validated?.unsafe_reasons ?? [],
        labels: labelled.labels,
        moderation_labels: image.validated?.moderation_labels ?? [],
        childImages,
      };
    }
    if (Date.now() >= deadline) {
      throw new DomainError('analysis_unavailable', `the analysis of image ${imageId} did not finish in ${timeoutMs} ms; it continues in the background`, {
        extra: { image_id: imageId, status: image ? statusOf(image) : 'to_be_reviewed', links: { status: `/v1/images/${imageId}/status` } },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
};
