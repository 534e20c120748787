/**
 * The bodies of the image webhook events (the spec leaves them open): the image as far as the
 * event tells. The dispatcher knows no public origin, so the body carries the image's file path
 * (`url_path`, under the API's origin) and the links to its status and analysis.
 */
import type { ImageLabelled, ImageUploaded, ImageValidated } from '../domain/images/image.ts';
import { imageFilePath } from './image-url.ts';

const links = (imageId: string) => ({ status: `/v1/images/${imageId}/status`, analysis: `/v1/images/${imageId}/analysis` });

/** image.uploaded */
export const imageWebhookResource = (data: ImageUploaded['data']): Record<string, unknown> => ({
  id: data.image_id,
  sub_id: data.sub_id,
  status: 'to_be_reviewed',
  url_path: imageFilePath(data),
  width: data.width,
  height: data.height,
  mime_type: data.mime_type,
  original_filename: data.original_filename,
  breed_ids: data.breed_ids,
  parent_image_id: data.parent_image_id,
  created_at: data.created_at,
  links: links(data.image_id),
});

/** image.processed (validation) */
export const processedWebhookResource = (data: ImageValidated['data']): Record<string, unknown> => ({
  id: data.image_id,
  status: data.verdict,
  unsafe_reasons: data.unsafe_reasons,
  moderation_labels: data.moderation_labels,
  updated_at: data.validated_at,
  links: links(data.image_id),
});

/** image.labels_created (labelling) */
export const labelledWebhookResource = (data: ImageLabelled['data']): Record<string, unknown> => ({
  id: data.image_id,
  status: 'labelled',
  species_id: data.species_id,
  suggested_breed_ids: data.suggested_breed_ids,
  suggested_breeds: data.suggested_breeds ?? data.suggested_breed_ids.map((id) => ({ id, confidence: null })),
  duplicate_of: data.duplicate_of ?? null,
  tags: data.tags,
  labels: data.labels,
  child_image_ids: data.child_image_ids,
  updated_at: data.labelled_at,
  links: links(data.image_id),
});
