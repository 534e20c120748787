import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { evolveImage, initialImageState, type ImageEvent, type ImagePublicRequestDecided, type ImagePublicRequested, type ImageState } from './image.ts';
import { requireOwnImage } from './owner.ts';

/** Longest `request_message` (spec Limits). */
export const REQUEST_MESSAGE_MAX = 500;

/**
 * Requests to make an image public, and the admin's decision. One request at a time: a second
 * while one is pending is 409 public_request_pending; an image already public needs none (409
 * conflict); after a rejection the owner may ask again. Only a pending request can be decided.
 */
export type PublicRequestCommand =
  | { type: 'RequestPublic'; account_id: string; request_id: string; request_message: string | null; now: string }
  | {
      type: 'DecidePublicRequest';
      status: 'approved' | 'rejected';
      admin_message: string | null;
      actioned_by_email: string | null;
      now: string;
    };

export const decidePublicRequest = (command: PublicRequestCommand, state: ImageState): (ImagePublicRequested | ImagePublicRequestDecided)[] => {
  switch (command.type) {
    case 'RequestPublic': {
      const image = requireOwnImage(state, command.account_id);
      if (image.publicRequest?.status === 'pending') throw new DomainError('public_request_pending', 'a request to make this image public is already pending');
      if (image.isPublic) throw new DomainError('conflict', 'this image is already public');
      if (command.request_message !== null && command.request_message.length > REQUEST_MESSAGE_MAX) {
        throw new DomainError('validation_failed', 'request_message is too long', { details: [`request_message: at most ${REQUEST_MESSAGE_MAX} characters`] });
      }
      return [
        {
          type: 'ImagePublicRequested',
          data: {
            image_id: image.imageId,
            account_id: image.accountId,
            request_id: command.request_id,
            request_message: command.request_message,
            created_at: command.now,
          },
        },
      ];
    }
    case 'DecidePublicRequest': {
      if (!state.exists || state.deleted) throw new DomainError('not_found', 'image not found');
      if (!state.publicRequest) throw new DomainError('not_found', 'this image has no request to make it public');
      if (state.publicRequest.status !== 'pending') throw new DomainError('conflict', `the request was already ${state.publicRequest.status}`);
      return [
        {
          type: 'ImagePublicRequestDecided',
          data: {
            image_id: state.imageId,
            account_id: state.accountId,
            request_id: state.publicRequest.request_id,
            status: command.status,
            admin_message: command.admin_message,
            actioned_by_email: command.actioned_by_email,
            actioned_at: command.now,
          },
        },
      ];
    }
  }
};

export const publicRequestDecider: Decider<ImageState, PublicRequestCommand, ImageEvent> = {
  decide: decidePublicRequest,
  evolve: evolveImage,
  initialState: initialImageState,
};
