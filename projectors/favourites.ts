import { Collections, type FavouriteDoc } from '../contracts/read-models.ts';
import { favouriteEvents } from '../domain/favourites/favourite.ts';
import { imageLinkedProjection } from './image-refs.ts';

/** Favourites, soft-deleted: a deleted favourite stays listed for is_deleted=true. */
export const favouritesProjection = imageLinkedProjection({
  name: 'favourites',
  collection: Collections.favourites,
  images: Collections.favouriteImages,
  events: favouriteEvents,
  created: 'FavouriteAdded',
  async setup(store) {
    const favourites = store.collection(Collections.favourites);
    // GET /favourites: the account's favourites by id, live ones (deleted: false) unless is_deleted,
    // or one sub_id's or image's; the image views' {account_id, image_id: $in}; image_id: image-refs.ts.
    await favourites.createIndex({ account_id: 1, deleted: 1, id: 1, _id: 1 });
    await favourites.createIndex({ account_id: 1, id: 1, _id: 1 });
    await favourites.createIndex({ account_id: 1, sub_id: 1, deleted: 1, id: 1, _id: 1 });
    await favourites.createIndex({ account_id: 1, image_id: 1, deleted: 1, id: 1, _id: 1 });
  },
  async apply(event, store, imageFields) {
    const favourites = store.collection<FavouriteDoc>(Collections.favourites);
    switch (event.type) {
      case 'FavouriteAdded':
        await favourites.upsert(
          {
            _id: String(event.data.favourite_id),
            id: event.data.favourite_id,
            account_id: event.data.account_id,
            image_id: event.data.image_id,
            sub_id: event.data.sub_id,
            country_code: event.data.country_code,
            created_at: event.data.created_at,
            deleted: false,
            deleted_at: null,
            ...(await imageFields(event.data.image_id, event.data.account_id)),
          },
          event.position,
        );
        return;
      case 'FavouriteDeleted': {
        const doc = await favourites.get(String(event.data.favourite_id));
        if (doc) await favourites.upsert({ ...doc, deleted: true, deleted_at: event.data.deleted_at }, event.position);
        return;
      }
    }
  },
});
