import type { ImageFilterQuery } from '../contracts/image-queries.ts';
import { queryBoolean } from '../contracts/common.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc } from '../contracts/reference-read-models.ts';
import { commaList } from '../http/paging.ts';
import type { Filter, ReadStore } from '../infrastructure/read-store/port.ts';
import { DomainError } from '../domain/errors.ts';
import { isLicenseFamily, LICENSE_FAMILIES } from '../domain/images/attribution.ts';

/** `jpg`, `jpeg`, `image/jpeg` → `jpg`; the stored formats are jpg, png, gif and webp. */
export const formatOf = (mime: string): string => {
  const bare = mime.replace(/^image\//, '');
  return bare === 'jpeg' ? 'jpg' : bare;
};

/** Breed ids of the given breed groups (lower-case names). */
export const breedIdsOfGroups = async (readStore: ReadStore, groups: string[]): Promise<string[]> =>
  groups.length === 0
    ? []
    : (await readStore.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).find({ breed_group_lc: { $in: groups } })).map((breed) => breed.id);

/**
 * The read-store filter of an image list, ANDed onto `scope` (who may see what). Comma lists
 * match any of their items; breed groups are resolved to their breeds, so an image matches a group
 * when one of its tagged breeds belongs to it.
 */
export const imageFilter = async (readStore: ReadStore, scope: Filter, query: Partial<ImageFilterQuery>): Promise<Filter> => {
  const and: Filter[] = [scope];
  const breedIds = [...commaList(query.breed_ids), ...(query.breed_id ? [query.breed_id.toLowerCase()] : [])];
  // Breed ids are compared as stored (lower-case in the reference data); commaList lower-cases.
  if (breedIds.length > 0) and.push({ breed_ids: { $in: breedIds } });
  const hasBreeds = queryBoolean(query.has_breeds);
  if (hasBreeds !== undefined) and.push({ breed_ids: hasBreeds ? { $ne: [] } : [] });
  const categories = commaList(query.category_ids);
  if (categories.length > 0) and.push({ category_ids: { $in: categories } });
  const colourIds = [...commaList(query.colour_ids), ...(query.colour_id ? [query.colour_id.toLowerCase()] : [])];
  if (colourIds.length > 0) and.push({ colour_ids: { $in: colourIds } });
  if (query.colour_code) and.push({ colour_codes: query.colour_code.toUpperCase() });
  const hasColours = queryBoolean(query.has_colours);
  if (hasColours !== undefined) and.push({ colour_ids: hasColours ? { $ne: [] } : [] });
  if (query.species_id) and.push({ species_id: query.species_id });
  if (query.sub_id) and.push({ sub_id: query.sub_id });
  if (query.age_months_min !== undefined) and.push({ age_months: { $gte: query.age_months_min } });
  if (query.age_months_max !== undefined) and.push({ age_months: { $lte: query.age_months_max } });
  const families = commaList(query.license);
  const unknownFamilies = families.filter((family) => !isLicenseFamily(family));
  if (unknownFamilies.length > 0) {
    throw new DomainError('validation_failed', `unknown licence family: ${unknownFamilies.join(', ')}`, {
      details: [`querystring.license must be licence families among ${LICENSE_FAMILIES.join(', ')}`],
    });
  }
  if (families.length > 0) and.push({ license_family: { $in: families } });
  const formats = commaList(query.mime_types).map(formatOf);
  if (formats.length > 0) and.push({ format: { $in: formats } });
  const groups = commaList(query.breed_groups);
  if (groups.length > 0) and.push({ breed_ids: { $in: await breedIdsOfGroups(readStore, groups) } });
  const excluded = commaList(query.exclude_breed_groups);
  if (excluded.length > 0) {
    const ids = await breedIdsOfGroups(readStore, excluded);
    if (ids.length > 0) and.push({ breed_ids: { $nin: ids } });
  }
  return and.length === 1 ? scope : { $and: and };
};

/** The sort field of `order_by` (ASC/DESC only). */
export const sortFieldOf = (orderBy: string | undefined): string => (orderBy === 'breeds' ? 'breed_ids' : (orderBy ?? 'created_at'));
