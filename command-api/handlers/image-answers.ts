import type { FastifyRequest } from 'fastify';
import { imageResource, unknownImage, uploadedImageDoc, type EmbeddedImage, type Image } from '../../contracts/image-resource.ts';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import type { ImageUploaded } from '../../domain/images/image.ts';
import { imageViews, type ImageViewOptions } from '../../http/image-views.ts';
import { publicBaseUrl } from '../../http/public-url.ts';
import { ownLastWrite } from '../../http/consistency.ts';
import type { CommandApiDeps } from '../deps.ts';
import { uploadOf } from './image-records.ts';

/** How long an answer that shows an image just written waits for the images projection. */
const IMAGE_VISIBLE_WAIT_MS = 5_000;

/**
 * The command API's answers that carry an image (uploads, votes, favourites, public requests)
 * render it as the query API does: the Image resource of contracts/image-resource.ts, through the
 * same joins (http/image-views.ts) over the read models. Without a read store (a bare command
 * process in a test) the image is serialized from its upload event alone.
 */
export const imageAnswers = (deps: CommandApiDeps) => {
  const baseUrl = (request: FastifyRequest) => publicBaseUrl(request, deps.images?.publicBaseUrl);
  const views = deps.readStore ? imageViews(deps.readStore, deps.images?.publicBaseUrl) : null;

  const fromUpload = (request: FastifyRequest, upload: ImageUploaded['data'], viewer: ImageViewOptions): Image =>
    imageResource(uploadedImageDoc(upload), {
      baseUrl: baseUrl(request),
      breeds: [],
      categories: [],
      colours: [],
      children: [],
      owner: viewer.admin || upload.account_id === viewer.accountId ? {} : undefined,
    });

  return {
    /** An image just uploaded (nothing is known of it beyond its upload yet), its breeds joined. */
    async uploaded(request: FastifyRequest, upload: ImageUploaded['data'], viewer: ImageViewOptions): Promise<Image> {
      if (!views) return fromUpload(request, upload, viewer);
      const [image] = await views.render(request, [uploadedImageDoc(upload)], viewer);
      return image;
    },

    /**
     * One image as the read model has it once the images projection has reached `position` (the
     * write just made; bounded wait); from its upload event if the read model does not have it.
     */
    async current(request: FastifyRequest, imageId: string, position: bigint | null, viewer: ImageViewOptions): Promise<Image | null> {
      if (views && deps.readStore) {
        if (position !== null) await deps.readStore.waitForCheckpoints(['images'], position, IMAGE_VISIBLE_WAIT_MS);
        const doc = await deps.readStore.collection<ImageDoc>(Collections.images).get(imageId);
        if (doc) return (await views.render(request, [doc], viewer))[0];
      }
      const upload = await uploadOf(deps.eventStore, imageId);
      return upload ? fromUpload(request, upload, viewer) : null;
    },

    /**
     * The image a vote or favourite embeds: the Image when known here and visible to the account,
     * else its id alone. Another account's image shows nothing the caller wrote: it is answered as
     * read. The caller's own image, or one not found, may be one it uploaded just before: unless
     * the images projection had already passed the caller's last image write when the image was
     * read, that write is waited for (bounded) and the image read again.
     */
    async embedded(request: FastifyRequest, imageId: string, viewer: ImageViewOptions): Promise<EmbeddedImage> {
      const readStore = deps.readStore;
      if (!views || !readStore) return unknownImage(imageId);
      const answer = (found: ReadonlyMap<string, ImageDoc>) => views.embeddedFrom(request, [imageId], found, viewer).then((images) => images.get(imageId) ?? unknownImage(imageId));
      // Where the images projection was before the read (a memory read where the store knows it).
      const projectedBefore = readStore.knownCheckpoint ? readStore.knownCheckpoint('images') : await readStore.getCheckpoint('images');
      const read = () => views.images().getMany([imageId]);
      const found = await read();
      const doc = found.get(imageId);
      if (!viewer.accountId || (doc && doc.account_id !== viewer.accountId)) return answer(found);
      const ownWrite = await ownLastWrite(request, viewer.accountId, deps.writePositions, ['images']);
      if (ownWrite === null || (projectedBefore !== null && projectedBefore >= ownWrite)) return answer(found);
      await readStore.waitForCheckpoints(['images'], ownWrite, IMAGE_VISIBLE_WAIT_MS);
      return answer(await read());
    },
  };
};
