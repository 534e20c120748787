import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import {
  evolveImage,
  initialImageState,
  type ImageEvent,
  type ImageLabelled,
  type ImageState,
  type ImageUploaded,
  type ImageValidated,
} from './image.ts';

/**
 * The upload and pipeline commands. Uploading names a new stream; the pipeline commands are
 * idempotent: a verdict for an image past that step decides nothing (a processor that sees its
 * event twice, or restarts mid-image, records its result once).
 */
export type ImageCommand =
  | { type: 'UploadImage'; data: ImageUploaded['data'] }
  | { type: 'RecordValidation'; data: ImageValidated['data'] }
  | { type: 'RecordLabels'; data: ImageLabelled['data'] };

export const decideImage = (command: ImageCommand, state: ImageState): ImageEvent[] => {
  switch (command.type) {
    case 'UploadImage':
      if (state.exists) throw new DomainError('conflict', `image ${command.data.image_id} already exists`);
      return [{ type: 'ImageUploaded', data: command.data }];
    case 'RecordValidation':
      if (!state.exists) throw new DomainError('not_found', 'image not found');
      if (state.deleted || state.status !== 'to_be_reviewed') return [];
      return [{ type: 'ImageValidated', data: command.data }];
    case 'RecordLabels':
      if (!state.exists) throw new DomainError('not_found', 'image not found');
      if (state.deleted || state.status === 'labelled') return [];
      if (state.status === 'to_be_reviewed') throw new DomainError('conflict', 'image is not validated yet');
      return [{ type: 'ImageLabelled', data: command.data }];
  }
};

export const imageDecider: Decider<ImageState, ImageCommand, ImageEvent> = {
  decide: decideImage,
  evolve: evolveImage,
  initialState: initialImageState,
};
