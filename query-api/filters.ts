import type { Filter } from '../infrastructure/read-store/port.ts';
import { commaList } from '../http/paging.ts';

/**
 * The image-related filters votes and favourites share: species of the image and breed groups
 * of its breeds (case-insensitive). Documents carry image_species_id / image_breed_groups,
 * filled once the image is known to the service.
 */
export const imageFilters = (query: { species_id?: string; breed_groups?: string; exclude_breed_groups?: string }): Filter => {
  const filter: Filter = {};
  if (query.species_id) filter.image_species_id = query.species_id;
  const include = commaList(query.breed_groups);
  const exclude = commaList(query.exclude_breed_groups);
  if (include.length > 0 && exclude.length > 0) {
    filter.$and = [{ image_breed_groups: { $in: include } }, { image_breed_groups: { $nin: exclude } }];
  } else if (include.length > 0) {
    filter.image_breed_groups = { $in: include };
  } else if (exclude.length > 0) {
    filter.image_breed_groups = { $nin: exclude };
  }
  return filter;
};
