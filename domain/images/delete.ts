import type { Decider } from '../decider.ts';
import { evolveImage, initialImageState, type ImageDeleted, type ImageEvent, type ImageState } from './image.ts';
import { requireOwnImage } from './owner.ts';

/**
 * Deleting an image: only its owner, once (a deleted image is 404 from then on). The event names
 * the blob keys so the clean-up processor removes the bytes without reading the stream back.
 * Votes and favourites on the image keep their ids; only its url goes away.
 */
export type DeleteImageCommand = { type: 'DeleteImage'; account_id: string; now: string };

export const decideDeleteImage = (command: DeleteImageCommand, state: ImageState): ImageDeleted[] => {
  const image = requireOwnImage(state, command.account_id);
  return [{ type: 'ImageDeleted', data: { image_id: image.imageId, account_id: image.accountId, blob_keys: image.blobKeys, deleted_at: command.now } }];
};

export const deleteImageDecider: Decider<ImageState, DeleteImageCommand, ImageEvent> = {
  decide: decideDeleteImage,
  evolve: evolveImage,
  initialState: initialImageState,
};
