import { isDomainError } from '../../domain/errors.ts';
import { isWrongExpectedRevision } from '../../infrastructure/event-store/port.ts';
import { nextNumericId } from '../../infrastructure/ids.ts';

/**
 * Runs `create` with a new numeric id; the id names a new stream appended with "no stream", so
 * the rare clash with another replica's id shows up as a conflict and is retried with a new id.
 */
export const withFreshNumericId = async <T>(create: (id: number) => Promise<T>, attempts = 5): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create(nextNumericId());
    } catch (error) {
      const clash = isWrongExpectedRevision(error) || (isDomainError(error) && error.code === 'conflict');
      if (!clash || attempt >= attempts) throw error;
    }
  }
};
