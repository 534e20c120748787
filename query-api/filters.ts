import type { Filter, ReadStore } from '../infrastructure/read-store/port.ts';
import { commaList } from '../http/paging.ts';
import { breedIdsOfGroups } from './image-filters.ts';

/**
 * The image-related filters votes and favourites share: species of the image and breed groups
 * of its breeds (case-insensitive). Documents carry image_species_id / image_breed_ids, filled
 * once the image is known to the service (and visible to the account); a breed group matches an
 * image when one of its tagged breeds belongs to the group.
 */
export const imageFilters = async (
  readStore: ReadStore,
  query: { species_id?: string; breed_groups?: string; exclude_breed_groups?: string },
): Promise<Filter> => {
  const and: Filter[] = [];
  if (query.species_id) and.push({ image_species_id: query.species_id });
  const include = commaList(query.breed_groups);
  if (include.length > 0) and.push({ image_breed_ids: { $in: await breedIdsOfGroups(readStore, include) } });
  const exclude = commaList(query.exclude_breed_groups);
  if (exclude.length > 0) {
    const excluded = await breedIdsOfGroups(readStore, exclude);
    if (excluded.length > 0) and.push({ image_breed_ids: { $nin: excluded } });
  }
  return and.length === 0 ? {} : { $and: and };
};
