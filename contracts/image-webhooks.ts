/**
 * The bodies of the image webhook events (the spec leaves them open). image.uploaded carries the
 * Image resource (contracts/image-resource.ts) as the upload answered it, as its owner sees it,
 * with the links to its status and analysis; its `url` is absolute under PUBLIC_BASE_URL when the
 * deployment sets one, else the file's path under the API's origin (the dispatcher answers no
 * request it could take an origin from). The later events tell what they changed.
 */
import type { ImageLabelled, ImageUploaded, ImageValidated } from '../domain/images/image.ts';
import { imageResource, uploadedImageDoc } from './image-resource.ts';

const links = (imageId: string) => ({ status: `/v1/images/${imageId}/status`, analysis: `/v1/images/${imageId}/analysis` });

/** image.uploaded */
export const imageWebhookResource = (data: ImageUploaded['data'], publicBaseUrl = ''): Record<string, unknown> => ({
  ...imageResource(uploadedImageDoc(data), { baseUrl: publicBaseUrl, breeds: [], categories: [], colours: [], children: [], owner: {} }),
  parent_image_id: data.parent_image_id,
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
  category_ids: data.category_ids ?? [],
  tags: data.tags,
  labels: data.labels,
  child_image_ids: data.child_image_ids,
  updated_at: data.labelled_at,
  links: links(data.image_id),
});
