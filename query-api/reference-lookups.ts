import { REFERENCE_COLLECTIONS, type BreedDoc } from '../contracts/reference-read-models.ts';
import { DomainError } from '../domain/errors.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/** The breed a path names, or 404 not_found. */
export const requireBreed = async (readStore: ReadStore, breedId: string): Promise<BreedDoc> => {
  const breed = await readStore.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).get(breedId);
  if (!breed) throw new DomainError('not_found', `breed '${breedId}' not found`);
  return breed;
};

export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
