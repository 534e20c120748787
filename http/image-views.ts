import type { FastifyRequest } from 'fastify';
import { imageResource, unknownImage, type EmbeddedImage, type Image, type ImageBreed, type ImageJoins, type ImageRecord } from '../contracts/image-resource.ts';
import { Collections, type FavouriteDoc, type ImageDoc, type VoteDoc } from '../contracts/read-models.ts';
import { breedIn, REFERENCE_COLLECTIONS, type BreedDoc, type CategoryDoc, type ColourDoc, type Translations } from '../contracts/reference-read-models.ts';
import { DEFAULT_LANGUAGE, type Language } from '../domain/reference-data/vocabulary.ts';
import type { ImageSize } from '../domain/images/image.ts';
import { DomainError } from '../domain/errors.ts';
import type { Filter, ReadStore } from '../infrastructure/read-store/port.ts';
import { publicBaseUrl } from './public-url.ts';

/** Picks each record's translation (the query API's ServedLanguage; English where no language was negotiated). */
export type TranslationPicker = { pick<T>(translations: Translations<T> | undefined): { translation: T | undefined; language: Language } };
export const ENGLISH: TranslationPicker = { pick: () => ({ translation: undefined, language: DEFAULT_LANGUAGE }) };

/** What an answer embeds in each image, and who is asking. */
export type ImageViewOptions = {
  size?: ImageSize;
  /** Join the tagged breeds, categories and colours (otherwise the arrays are empty). Default: all three. */
  breeds?: boolean;
  categories?: boolean;
  colours?: boolean;
  /** The caller's account: its own images show the owner's fields (and its vote and favourite). */
  accountId: string | null;
  /** An admin sees every image as its owner does. */
  admin?: boolean;
  language?: TranslationPicker;
};

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

/** A breed as an image embeds it: the Breed resource (translated) plus TheCatAPI's weight_imperial and suppress_tail. */
export const imageBreedOf = (doc: BreedDoc, language: TranslationPicker): ImageBreed => {
  const { translation, language: served } = language.pick(doc.translations);
  const resource = breedIn(doc, translation, served);
  return { ...resource, weight_imperial: doc.resource.weight.imperial, suppress_tail: doc.resource.suppressed_tail ? 1 : 0 };
};

/**
 * Turns image documents into the Image resource (contracts/image-resource.ts, the one serializer)
 * with one read per kind of join (breeds, categories, colours, child images and, for the caller's
 * own images, their votes and favourites), whatever the number of images. Every process that
 * answers with images (query API, command API) renders them here.
 */
export const imageViews = (readStore: ReadStore, configuredBaseUrl: string | undefined) => {
  const images = () => readStore.collection<ImageDoc>(Collections.images);

  /** By id through getMany: on MongoDB the reads of concurrent requests leave together (one `$in` per turn). */
  const byId = async <T extends { _id: string }>(collection: string, ids: string[]): Promise<Map<string, T>> =>
    ids.length === 0 ? new Map() : readStore.collection<T & { _id: string }>(collection).getMany(ids);

  /** The newest record per image id of the caller (votes and favourites may hold several per image). */
  const latestPerImage = <T extends { image_id: string; id: number }>(docs: T[]): Map<string, T> => {
    const map = new Map<string, T>();
    for (const doc of docs) {
      const known = map.get(doc.image_id);
      if (!known || doc.id > known.id) map.set(doc.image_id, doc);
    }
    return map;
  };

  const isOwnerView = (doc: Pick<ImageDoc, 'account_id'>, options: ImageViewOptions) => options.admin === true || doc.account_id === options.accountId;

  /**
   * The caller's newest vote and favourite on each of its own images. `ownerOf` maps each own
   * image to its account (one account for an answer; several for a webhook batch, still one read
   * each: records of other accounts on those images are left out).
   */
  const ownRecords = async (ownerOf: Map<string, string>) => {
    if (ownerOf.size === 0) return [new Map<string, VoteDoc>(), new Map<string, FavouriteDoc>()] as const;
    const accounts = unique(ownerOf.values());
    const filter = { account_id: accounts.length === 1 ? accounts[0] : { $in: accounts }, image_id: { $in: [...ownerOf.keys()] } };
    const theOwners = <T extends { account_id: string; image_id: string }>(docs: T[]) => docs.filter((doc) => ownerOf.get(doc.image_id) === doc.account_id);
    // One account: its newest record per image where the store can pick it (the embedded store reads
    // one per image, not every vote the account cast on it); several: each image's own owner's only.
    const records = <T extends { account_id: string; image_id: string; id: number } & { _id: string }>(name: string, where: Filter) => {
      const collection = readStore.collection<T>(name);
      return accounts.length === 1 && collection.latestPer ? collection.latestPer(where, 'image_id', 'id') : collection.find(where);
    };
    return Promise.all([
      records<VoteDoc & { _id: string }>(Collections.votes, filter).then(theOwners).then(latestPerImage),
      records<FavouriteDoc & { _id: string }>(Collections.favourites, { ...filter, deleted: false }).then(theOwners).then(latestPerImage),
    ]);
  };

  /**
   * Renders `docs` (in order) at `baseUrl`. `viewers[i]`, when given, is the account docs[i] is
   * shown to (a webhook batch shows images to several accounts at once); else options.accountId.
   */
  const renderAt = async (baseUrl: string, docs: ImageRecord[], options: ImageViewOptions, viewers?: readonly (string | null)[]): Promise<Image[]> => {
    const language = options.language ?? ENGLISH;
    const viewerOf = (index: number) => (viewers ? viewers[index] : options.accountId);
    const [wantBreeds, wantCategories, wantColours] = [options.breeds ?? true, options.categories ?? true, options.colours ?? true];
    const children = await byId<ImageDoc>(Collections.images, unique(docs.flatMap((doc) => doc.child_image_ids)));
    const all = [...docs, ...children.values()];
    const own = new Map<string, string>();
    docs.forEach((doc, index) => {
      const viewer = viewerOf(index);
      if (viewer !== null && doc.account_id === viewer) own.set(doc.id, viewer);
    });
    const [breeds, categories, colours, [votes, favourites]] = await Promise.all([
      wantBreeds ? byId<BreedDoc>(REFERENCE_COLLECTIONS.breeds, unique(all.flatMap((doc) => doc.breed_ids))) : new Map<string, BreedDoc>(),
      wantCategories ? byId<CategoryDoc>(REFERENCE_COLLECTIONS.categories, unique(all.flatMap((doc) => doc.category_ids))) : new Map<string, CategoryDoc>(),
      wantColours ? byId<ColourDoc>(REFERENCE_COLLECTIONS.colours, unique(all.flatMap((doc) => doc.colour_ids))) : new Map<string, ColourDoc>(),
      ownRecords(own),
    ]);
    const joinsOf = (doc: ImageRecord) => ({
      breeds: doc.breed_ids.flatMap((id) => (breeds.has(id) ? [imageBreedOf(breeds.get(id)!, language)] : [])),
      categories: doc.category_ids.flatMap((id) => {
        const category = categories.get(id);
        return category ? [{ id: /^\d+$/.test(category.id) ? Number(category.id) : category.id, name: category.name }] : [];
      }),
      colours: doc.colour_ids.flatMap((id) => {
        const colour = colours.get(id);
        if (!colour) return [];
        const { _id, seq, ...resource } = colour;
        return [resource];
      }),
    });
    return docs.map((doc, index) => {
      const isOwn = own.get(doc.id) === viewerOf(index);
      const vote = isOwn ? votes.get(doc.id) : undefined;
      const favourite = isOwn ? favourites.get(doc.id) : undefined;
      const joins: ImageJoins = {
        baseUrl,
        size: options.size,
        ...joinsOf(doc),
        children: doc.child_image_ids.flatMap((id) => {
          const child = children.get(id);
          return child ? [{ doc: child, joins: joinsOf(child) }] : [];
        }),
        owner: isOwnerView(doc, { ...options, accountId: viewerOf(index) })
          ? {
              vote: vote && { id: vote.id, value: vote.value, sub_id: vote.sub_id, created_at: vote.created_at },
              favourite: favourite && { id: favourite.id, sub_id: favourite.sub_id, created_at: favourite.created_at },
            }
          : undefined,
      };
      return imageResource(doc, joins);
    });
  };

  const baseUrlOf = (request: FastifyRequest) => publicBaseUrl(request, configuredBaseUrl);

  const embeddedFrom = async (request: FastifyRequest, ids: string[], found: ReadonlyMap<string, ImageDoc>, options: ImageViewOptions): Promise<Map<string, EmbeddedImage>> => {
    const docs = [...found.values()].filter((doc) => ids.includes(doc._id) && (doc.public || isOwnerView(doc, options)));
    const rendered = new Map<string, EmbeddedImage>((await renderAt(baseUrlOf(request), docs, options)).map((image) => [image.id, image]));
    for (const id of ids) if (!rendered.has(id)) rendered.set(id, unknownImage(id));
    return rendered;
  };

  return {
    /** The Image resources of these documents, in their order. */
    render: (request: FastifyRequest, docs: ImageRecord[], options: ImageViewOptions): Promise<Image[]> => renderAt(baseUrlOf(request), docs, options),

    /**
     * Images embedded in other records (votes, favourites, breeds' reference images): the Image of
     * each id known here and visible to the caller (its own, or public), else `{id, url: null}`.
     */
    async embedded(request: FastifyRequest, ids: string[], options: ImageViewOptions): Promise<Map<string, EmbeddedImage>> {
      return embeddedFrom(request, ids, await byId<ImageDoc>(Collections.images, unique(ids)), options);
    },

    /** As `embedded`, from the image documents already read (`found`, by id). */
    embeddedFrom,

    /**
     * The images several records embed, each for its own account (a webhook batch: each vote's or
     * favourite's account is its caller), at `baseUrl`: as `embedded` answers each of them, with
     * one read of the images and one per kind of join for all of them.
     */
    async embeddedFor(baseUrl: string, wanted: readonly { imageId: string; accountId: string }[], options: Omit<ImageViewOptions, 'accountId' | 'admin'> = {}): Promise<EmbeddedImages> {
      const found = await images().getMany(unique(wanted.map(({ imageId }) => imageId)));
      const pairs = new Map<string, { doc: ImageDoc; accountId: string }>();
      for (const { imageId, accountId } of wanted) {
        const doc = found.get(imageId);
        if (doc && (doc.public || doc.account_id === accountId)) pairs.set(embeddedKey(accountId, imageId), { doc, accountId });
      }
      const rendered = await renderAt(baseUrl, [...pairs.values()].map(({ doc }) => doc), { ...options, accountId: null }, [...pairs.values()].map(({ accountId }) => accountId));
      const byKey = new Map([...pairs.keys()].map((key, index) => [key, rendered[index]]));
      return {
        get: (accountId, imageId) => byKey.get(embeddedKey(accountId, imageId)) ?? unknownImage(imageId),
        missing: unique(wanted.map(({ imageId }) => imageId)).filter((id) => !found.has(id)),
      };
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

/** Images resolved for several accounts at once (ImageViews.embeddedFor): the one each account sees. */
export type EmbeddedImages = {
  get(accountId: string, imageId: string): EmbeddedImage;
  /** The ids the images read model does not have (not yet, or not at all). */
  missing: readonly string[];
};
const embeddedKey = (accountId: string, imageId: string) => `${accountId}\u0000${imageId}`;
