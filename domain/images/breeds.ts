import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { evolveImage, initialImageState, type ImageBreedTagged, type ImageBreedUntagged, type ImageEvent, type ImageState } from './image.ts';
import { requireOwnImage } from './owner.ts';

/**
 * Breeds tagged on an image by its owner. Tagging a breed already on the image, or untagging one
 * that is not, is refused (409 conflict / 404 not_found) so a client learns its view was stale.
 * `breed_exists` is looked up by the caller (the breed's own stream) before deciding.
 */
export type ImageBreedCommand =
  | { type: 'TagBreed'; account_id: string; breed_id: string; breed_exists: boolean; now: string }
  | { type: 'UntagBreed'; account_id: string; breed_id: string; now: string };

export const decideImageBreeds = (command: ImageBreedCommand, state: ImageState): (ImageBreedTagged | ImageBreedUntagged)[] => {
  const image = requireOwnImage(state, command.account_id);
  switch (command.type) {
    case 'TagBreed':
      if (!command.breed_exists) throw new DomainError('validation_failed', `breed '${command.breed_id}' does not exist`, { details: [`breed_id: no breed '${command.breed_id}'`] });
      if (image.breedIds.includes(command.breed_id)) throw new DomainError('conflict', `breed '${command.breed_id}' is already tagged on this image`);
      return [{ type: 'ImageBreedTagged', data: { image_id: image.imageId, account_id: image.accountId, breed_id: command.breed_id, tagged_at: command.now } }];
    case 'UntagBreed':
      if (!image.breedIds.includes(command.breed_id)) throw new DomainError('not_found', `breed '${command.breed_id}' is not tagged on this image`);
      return [{ type: 'ImageBreedUntagged', data: { image_id: image.imageId, account_id: image.accountId, breed_id: command.breed_id, untagged_at: command.now } }];
  }
};

export const imageBreedsDecider: Decider<ImageState, ImageBreedCommand, ImageEvent> = {
  decide: decideImageBreeds,
  evolve: evolveImage,
  initialState: initialImageState,
};
