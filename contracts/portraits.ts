import { Type, type Static } from '@sinclair/typebox';
import { PORTRAIT_MODELS, PORTRAIT_STYLES } from '../domain/pet-analyses/portrait.ts';
import { ImageId } from './common.ts';
import { estimateFields } from './pet-analyses.ts';

/** POST /v1/pets/{petId}/portrait: a style from the list; optionally the photo(s) to use (each one of the pet's photos). */
export const PortraitRequest = Type.Object(
  {
    style: Type.Union(
      PORTRAIT_STYLES.map((style) => Type.Literal(style)),
      { description: PORTRAIT_STYLES.join(', ') },
    ),
    model: Type.Optional(
      Type.Union(
        PORTRAIT_MODELS.map((model) => Type.Literal(model)),
        { description: `the renderer's codename: ${PORTRAIT_MODELS.join(', ')} (the default)` },
      ),
    ),
    image_ids: Type.Optional(
      Type.Array(ImageId, {
        minItems: 1,
        maxItems: 20,
        description: "photos of this pet to draw from; the first is used. Without it the service picks one (face, then front, then side pose; newest first)",
      }),
    ),
    ...estimateFields,
  },
  { additionalProperties: false },
);
export type PortraitRequest = Static<typeof PortraitRequest>;
