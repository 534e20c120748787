import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { evolveImage, initialImageState, type ImageEvent, type ImagePublished, type ImageState } from './image.ts';

/**
 * Catalogue imports become public without a request per image: an image uploaded by the
 * catalogue account with `public_when_safe` (which the upload decider allows for that account
 * only, and only with a licence) is published once the pipeline is done with it — validated
 * clean and labelled. Publishing again changes nothing; an unsafe image is never published.
 */
export type CatalogueCommand = { type: 'PublishCatalogueImage'; now: string };

export const decideCatalogue = (command: CatalogueCommand, state: ImageState): ImagePublished[] => {
  if (!state.exists || state.deleted) throw new DomainError('not_found', 'image not found');
  if (!state.publicWhenSafe) throw new DomainError('forbidden', 'only catalogue imports are made public without a request');
  if (state.isPublic) return [];
  if (state.verdict === 'unsafe') throw new DomainError('conflict', 'the safety check found this image unsafe: it stays private');
  if (state.status !== 'labelled') throw new DomainError('conflict', 'the image is not through the pipeline yet (validation and labelling)');
  return [{ type: 'ImagePublished', data: { image_id: state.imageId, account_id: state.accountId, reason: 'catalogue_import', published_at: command.now } }];
};

export const catalogueDecider: Decider<ImageState, CatalogueCommand, ImageEvent> = {
  decide: decideCatalogue,
  evolve: evolveImage,
  initialState: initialImageState,
};
