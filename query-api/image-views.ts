import type { FastifyRequest } from 'fastify';
import { imageResource, type Image, type ImageBreed } from '../contracts/image-resource.ts';
import type { ImageSummary } from '../contracts/public-requests.ts';
import { Collections, type FavouriteDoc, type ImageDoc, type VoteDoc } from '../contracts/read-models.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc, type CategoryDoc, type ColourDoc } from '../contracts/reference-read-models.ts';
import type { ImageSize } from '../domain/images/image.ts';
import { DomainError } from '../domain/errors.ts';
import { publicBaseUrl } from '../http/public-url.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { ServedLanguage } from './language.ts';
import { breedIn } from './breed-catalogue.ts';
import { imageUrlOf } from '../contracts/image-resource.ts';

/** What an answer embeds in each image. */
export type ImageViewOptions = {
  size?: ImageSize;
  breeds: boolean;
  categories: boolean;
  colours: boolean;
  /** The caller's account: its own images show the owner's fields. */
  accountId: string;
  language: ServedLanguage;
};

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

/** A breed as an image embeds it: the Breed resource (translated) plus TheCatAPI's weight_imperial and suppress_tail. */
export const imageBreedOf = (doc: BreedDoc, language: ServedLanguage): ImageBreed => {
  const { translation, language: served } = language.pick(doc.translations);
  const resource = breedIn(doc, translation, served);
  return { ...resource, weight_imperial: doc.resource.weight.imperial, suppress_tail: doc.resource.suppressed_tail ? 1 : 0 };
};

/**
 * Turns image documents into the Image resource with one query per kind of join (breeds,
 * categories, colours, child images and, for the caller's own images, their votes and favourites),
 * whatever the number of images.
 */
export const imageViews = (readStore: ReadStore, configuredBaseUrl: string | undefined) => {
  const images = () => readStore.collection<ImageDoc>(Collections.images);

  const byId = async <T extends { _id: string }>(collection: string, ids: string[]): Promise<Map<string, T>> =>
    ids.length === 0
      ? new Map()
      : new Map((await readStore.collection<T & { _id: string }>(collection).find({ _id: { $in: ids } })).map((doc) => [doc._id, doc]));

  /** The newest record per image id of the caller (votes and favourites may hold several per image). */
  const latestPerImage = <T extends { image_id: string; id: number }>(docs: T[]): Map<string, T> => {
    const map = new Map<string, T>();
    for (const doc of docs) {
      const known = map.get(doc.image_id);
      if (!known || doc.id > known.id) map.set(doc.image_id, doc);
    }
    return map;
  };

  return {
    async render(request: FastifyRequest, docs: ImageDoc[], options: ImageViewOptions): Promise<Image[]> {
      const baseUrl = publicBaseUrl(request, configuredBaseUrl);
      const own = docs.filter((doc) => doc.account_id === options.accountId).map((doc) => doc.id);
      const [breeds, categories, colours, children, votes, favourites] = await Promise.all([
        options.breeds ? byId<BreedDoc>(REFERENCE_COLLECTIONS.breeds, unique(docs.flatMap((doc) => doc.breed_ids))) : new Map<string, BreedDoc>(),
        options.categories ? byId<CategoryDoc>(REFERENCE_COLLECTIONS.categories, unique(docs.flatMap((doc) => doc.category_ids))) : new Map<string, CategoryDoc>(),
        options.colours ? byId<ColourDoc>(REFERENCE_COLLECTIONS.colours, unique(docs.flatMap((doc) => doc.colour_ids))) : new Map<string, ColourDoc>(),
        byId<ImageDoc>(Collections.images, unique(docs.flatMap((doc) => doc.child_image_ids))),
        own.length === 0
          ? new Map<string, VoteDoc>()
          : readStore
              .collection<VoteDoc>(Collections.votes)
              .find({ account_id: options.accountId, image_id: { $in: own } })
              .then(latestPerImage),
        own.length === 0
          ? new Map<string, FavouriteDoc>()
          : readStore
              .collection<FavouriteDoc>(Collections.favourites)
              .find({ account_id: options.accountId, image_id: { $in: own }, deleted: false })
              .then(latestPerImage),
      ]);
      return docs.map((doc) => {
        const isOwn = doc.account_id === options.accountId;
        const vote = votes.get(doc.id);
        const favourite = favourites.get(doc.id);
        return imageResource(doc, {
          baseUrl,
          size: options.size,
          breeds: options.breeds ? doc.breed_ids.flatMap((id) => (breeds.has(id) ? [imageBreedOf(breeds.get(id)!, options.language)] : [])) : undefined,
          categories: options.categories
            ? doc.category_ids.flatMap((id) => {
                const category = categories.get(id);
                return category ? [{ id: /^\d+$/.test(category.id) ? Number(category.id) : category.id, name: category.name }] : [];
              })
            : undefined,
          colours: options.colours
            ? doc.colour_ids.flatMap((id) => {
                const colour = colours.get(id);
                if (!colour) return [];
                const { _id, seq, ...resource } = colour;
                return [resource];
              })
            : undefined,
          children: doc.child_image_ids.flatMap((id) => (children.has(id) ? [children.get(id)!] : [])),
          owner: isOwn
            ? {
                vote: vote && { id: vote.id, value: vote.value, sub_id: vote.sub_id, created_at: vote.created_at },
                favourite: favourite && { id: favourite.id, sub_id: favourite.sub_id, created_at: favourite.created_at },
              }
            : undefined,
        });
      });
    },

    /** The image as a public request shows it. */
    summary(request: FastifyRequest, doc: ImageDoc): ImageSummary {
      return { id: doc.id, url: imageUrlOf(publicBaseUrl(request, configuredBaseUrl), doc), width: doc.width, height: doc.height, mime_type: doc.mime_type };
    },

    /** An image the caller may see — its own, or a public one — else 404 / 403. */
    async visible(doc: ImageDoc | null, accountId: string): Promise<ImageDoc> {
      if (!doc) throw new DomainError('not_found', 'image not found');
      if (doc.account_id !== accountId && !doc.public) throw new DomainError('forbidden', 'this image belongs to another account');
      return doc;
    },

    images,
  };
};

export type ImageViews = ReturnType<typeof imageViews>;
