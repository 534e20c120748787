import { DomainError } from '../errors.ts';
import type { AccountKind } from '../accounts/account.ts';
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
  /**
   * `uploader`: the kind of the uploading account (default customer). Only the catalogue account
   * may upload an image to be made public once safe (`public_when_safe`), and only with a licence.
   */
  | { type: 'UploadImage'; data: ImageUploaded['data']; uploader?: AccountKind }
  | { type: 'RecordValidation'; data: ImageValidated['data'] }
  | { type: 'RecordLabels'; data: ImageLabelled['data'] };

export const decideImage = (command: ImageCommand, state: ImageState): ImageEvent[] => {
  switch (command.type) {
    case 'UploadImage':
      if (state.exists) throw new DomainError('conflict', `image ${command.data.image_id} already exists`);
      if (command.data.public_when_safe) {
        if ((command.uploader ?? 'customer') !== 'catalogue') throw new DomainError('forbidden', 'only catalogue imports are made public without a request');
        if (!command.data.attribution?.license) throw new DomainError('validation_failed', 'a photo without a licence is not made public', { details: ['license is required for a public catalogue photo'] });
      }
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
