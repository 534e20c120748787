import { DomainError } from '../errors.ts';
import type { ImageState } from './image.ts';

/** A live image of the state, or the error an operation on it answers: 404 (none or deleted), 403 (another account's). */
export const requireOwnImage = (state: ImageState, accountId: string): Extract<ImageState, { exists: true }> => {
  if (!state.exists || state.deleted) throw new DomainError('not_found', 'image not found');
  if (state.accountId !== accountId) throw new DomainError('forbidden', 'this image belongs to another account');
  return state;
};
