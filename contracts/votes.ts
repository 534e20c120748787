import { Type, type Static } from '@sinclair/typebox';
import { CommaList, CountryCode, ImageId, IpAddress, SpeciesIdParam, SubId } from './common.ts';
import { EmbeddedImage, unknownImage, type EmbeddedImage as EmbeddedImageValue } from './image-resource.ts';
import { styleA } from './paging.ts';
import { Lang } from './language.ts';

export const Vote = Type.Object(
  {
    id: Type.Integer(),
    image_id: Type.String(),
    sub_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    value: Type.Integer({ enum: [1, -1] }),
    country_code: Type.Union([Type.String(), Type.Null()]),
    image: EmbeddedImage,
  },
  { description: 'A vote on an image' },
);
export type Vote = Static<typeof Vote>;

export const CreateVoteBody = Type.Object(
  {
    image_id: ImageId,
    value: Type.Integer({ enum: [1, -1], description: '1 upvote, -1 downvote' }),
    sub_id: Type.Optional(SubId),
    country_code: Type.Optional(CountryCode),
    ip_address: Type.Optional(IpAddress),
  },
  { additionalProperties: false },
);
export type CreateVoteBody = Static<typeof CreateVoteBody>;

export const CreatedVote = Type.Composite([Type.Object({ message: Type.Literal('SUCCESS') }), Type.Omit(Vote, [])], {
  description: 'The vote just recorded',
});

export const ListVotesQuery = Type.Object({
  ...styleA({ limit: 10, order: 'ASC' }),
  sub_id: Type.Optional(SubId),
  species_id: Type.Optional(SpeciesIdParam),
  breed_groups: Type.Optional(CommaList('only votes on images of these breed groups')),
  exclude_breed_groups: Type.Optional(CommaList('no votes on images of these breed groups')),
  lang: Lang,
});
export type ListVotesQuery = Static<typeof ListVotesQuery>;

/** The Vote resource as the API shows it, from the event that recorded it; `image` as embedded (only its id when not known here). */
export const voteFromCast = (vote: {
  vote_id: number;
  image_id: string;
  sub_id: string | null;
  created_at: string;
  value: number;
  country_code: string | null;
}, image: EmbeddedImageValue = unknownImage(vote.image_id)): Vote => ({
  id: vote.vote_id,
  image_id: vote.image_id,
  sub_id: vote.sub_id,
  created_at: vote.created_at,
  value: vote.value,
  country_code: vote.country_code,
  image,
});
