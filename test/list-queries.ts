/**
 * Every list and search the query API serves, as requests: test/list-queries.e2e.spec.ts sends
 * each one, records the read-store queries the route issues (find, count, sample) and fails when
 * the adapter would scan a collection or sort it in memory to answer one. A new list route, or a new
 * filter on one, is covered by adding its requests here.
 *
 * `{pet}`, `{webhook}`, `{image}` are replaced by ids the spec creates; `admin` requests use the
 * admin key, the others an account's.
 */
export type ListRequest = { list: string; path: string; admin?: boolean };

/** The image filters both the own list and search take (query-api/image-filters.ts). */
const IMAGE_FILTERS = [
  '',
  '&breed_ids=abys,beng',
  '&breed_id=abys',
  '&category_ids=1,2',
  '&colour_ids=cat-blk',
  '&colour_id=cat-blk',
  '&colour_code=BLK',
  '&has_breeds=true',
  '&has_breeds=false',
  '&has_colours=true',
  '&has_colours=false',
  '&species_id=1',
  '&sub_id=u1',
  '&age_months_min=3&age_months_max=40',
  '&mime_types=jpg,png',
  '&license=cc-by-sa',
  '&license=cc-by,cc0',
  '&breed_groups=hound',
  '&exclude_breed_groups=hound',
];
const IMAGE_ORDERS = ['&order=DESC', '&order=ASC&page=1', '&order_by=sub_id&order=ASC', '&order_by=breeds&order=DESC', '&order_by=id&order=ASC', '&order_by=created_at&order=DESC', '&order=RAND'];

const imageRequests = (list: string, base: string): ListRequest[] => [
  ...IMAGE_FILTERS.map((filter) => ({ list, path: `${base}?limit=5&order=DESC${filter}` })),
  ...IMAGE_ORDERS.map((order) => ({ list, path: `${base}?limit=5${order}` })),
];

/**
 * Random search over the public catalogue (query-api/random-images.ts): drawn from the search
 * entries by key and random key; the spec makes enough public images that a draw of 1 reads entries.
 */
const RANDOM_SEARCHES = [
  '',
  '&breed_ids=abys',
  '&breed_ids=abys,beng',
  '&breed_id=abys&species_id=1',
  '&species_id=1',
  '&has_breeds=1',
  '&has_breeds=0',
  '&category_ids=1,2',
  '&mime_types=jpg,png',
  '&order=RAND&breed_ids=abys&mime_types=jpg',
].map((filter) => ({ list: 'images (random search)', path: `/v1/images/search?limit=1${filter}` }));

export const LIST_REQUESTS: ListRequest[] = [
  ...['', '&order=DESC', '&page=2', '&sub_id=u1', '&order=RAND', '&species_id=1', '&breed_groups=hound', '&exclude_breed_groups=hound'].map((query) => ({
    list: 'votes',
    path: `/v1/votes?limit=5${query}`,
  })),
  ...['', '&order=DESC', '&page=2', '&is_deleted=true', '&sub_id=u1', '&image_id={image}', '&attach_image=1', '&order=RAND', '&species_id=1', '&breed_groups=hound'].map(
    (query) => ({ list: 'favourites', path: `/v1/favourites?limit=5${query}` }),
  ),
  ...imageRequests('images (own)', '/v1/images'),
  ...imageRequests('images (search)', '/v1/images/search'),
  { list: 'images (search)', path: '/v1/images/search?limit=5&order=DESC&account_id={account}' },
  { list: 'images (search)', path: '/v1/images/search?limit=5' },
  ...RANDOM_SEARCHES,
  ...['', '&order=DESC', '&page=1', '&breed_id=abys', '&sub_id=u1', '&species_id=1', '&breed_groups=hound', '&exclude_breed_groups=hound', '&order=RAND'].map((query) => ({
    list: 'pets',
    path: `/v1/pets?limit=5${query}`,
  })),
  { list: 'pet', path: '/v1/pets/{pet}' },
  { list: 'body-condition reviews', path: '/v1/pets/{pet}/body-condition-score/reviews' },
  { list: 'body-condition reviews', path: '/v1/admin/body-condition-score/reviews?limit=5', admin: true },
  { list: 'body-condition reviews', path: '/v1/admin/body-condition-score/reviews?limit=5&status=pending', admin: true },
  { list: 'webhooks', path: '/v1/webhooks' },
  ...['', '&order=ASC', '&page=1', '&status=failed', '&status=pending&order=ASC'].map((query) => ({
    list: 'webhook deliveries',
    path: `/v1/webhooks/{webhook}/deliveries?limit=5${query}`,
  })),
  { list: 'usage', path: '/v1/accounts/usage?start_date=2020-01-01&end_date=2099-12-31' },
  { list: 'public request', path: '/v1/images/{image}/public-requests' },
  { list: 'ops', path: '/v1/admin/ops/status', admin: true },
  ...['pending', 'flagged', 'held'].map((queue) => ({ list: 'moderation', path: `/v1/admin/images/moderation?queue=${queue}&limit=5`, admin: true })),
];
