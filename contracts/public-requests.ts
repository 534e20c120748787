import { Type, type Static } from '@sinclair/typebox';
import { ImageId } from './common.ts';
import type { ImageDoc } from './read-models.ts';
import { EmbeddedImage } from './image-resource.ts';
import type { EmbeddedImage as EmbeddedImageValue } from './image-resource.ts';
import { REQUEST_MESSAGE_MAX } from '../domain/images/public-requests.ts';


/** A request to make an image public (spec "Public-request record"); status pending, approved or rejected. */
export const PublicRequest = Type.Object(
  {
    id: Type.String(),
    image_id: Type.String(),
    account_id: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
    request_message: Type.Union([Type.String(), Type.Null()]),
    admin_message: Type.Union([Type.String(), Type.Null()]),
    actioned_by_email: Type.Union([Type.String(), Type.Null()]),
    actioned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    image: EmbeddedImage,
  },
  { description: 'A request to make an image public' },
);
export type PublicRequest = Static<typeof PublicRequest>;

export const PublicRequestParams = Type.Object({ imageId: ImageId });

export const CreatePublicRequestBody = Type.Object(
  { request_message: Type.Optional(Type.String({ maxLength: REQUEST_MESSAGE_MAX, description: `why the image should be public (≤ ${REQUEST_MESSAGE_MAX} characters)` })) },
  { additionalProperties: false },
);
export type CreatePublicRequestBody = Static<typeof CreatePublicRequestBody>;

export const PublicRequestDecisionBody = Type.Object(
  {
    status: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
    admin_message: Type.Optional(Type.String({ maxLength: 2000 })),
    actioned_by_email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'who decided (the admin key names nobody)' })),
  },
  { additionalProperties: false },
);
export type PublicRequestDecisionBody = Static<typeof PublicRequestDecisionBody>;

/** The record from the image's read model, with the image as the API shows it. */
export const publicRequestResource = (doc: Pick<ImageDoc, 'id' | 'account_id' | 'public_request'>, image: EmbeddedImageValue): PublicRequest | null => {
  const request = doc.public_request;
  if (!request) return null;
  return {
    id: request.id,
    image_id: doc.id,
    account_id: doc.account_id,
    status: request.status,
    request_message: request.request_message,
    admin_message: request.admin_message,
    actioned_by_email: request.actioned_by_email,
    actioned_at: request.actioned_at,
    created_at: request.created_at,
    updated_at: request.actioned_at ?? request.created_at,
    image,
  };
};
