import { Type, type Static } from '@sinclair/typebox';
import { SpeciesIdParam } from './common.ts';
import { ImageSchema } from './image-resource.ts';

/** GET /v1/images/{id}/similar: the caller's own and public images nearest the image's embedding. */
export const SimilarImagesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'how many images (1..100, default 10)' }),
  species_id: Type.Optional(SpeciesIdParam),
});
export type SimilarImagesQuery = Static<typeof SimilarImagesQuery>;

export const SimilarImage = Type.Object(
  {
    id: Type.String(),
    similarity: Type.Number({ minimum: -1, maximum: 1, description: 'cosine between the two images’ embeddings (1: the same picture)' }),
    image: ImageSchema,
  },
  { description: 'An image similar to the one asked about' },
);
