import { Type, type Static } from '@sinclair/typebox';
import { QueryBoolean } from './common.ts';
import { IncludeSourcesDescription, Lang } from './language.ts';

/** GET /v1/pets/{petId}/care-tips (alias /health-tips): the options the spec lists. */
export const CareTipsQuery = Type.Object({
  lang: Lang,
  include_seeded: Type.Optional(QueryBoolean('include the breed-standard tips of the pet’s breed (default true)', true)),
  include_sources: Type.Optional(QueryBoolean(IncludeSourcesDescription, false)),
});
export type CareTipsQuery = Static<typeof CareTipsQuery>;

export const CareTip = Type.Object(
  {
    id: Type.String(),
    category: Type.String(),
    title: Type.String(),
    description: Type.String(),
    tip_type: Type.Union([Type.Literal('breed_standard'), Type.Literal('personalised')]),
    sources: Type.Optional(Type.Array(Type.String(), { description: 'only with include_sources=true' })),
    reasons: Type.String({ description: 'the rule and the facts of the pet that produced the tip' }),
  },
  { description: 'A care tip: breed-standard (seeded) or personalised' },
);
export type CareTip = Static<typeof CareTip>;

export const CareTipsResult = Type.Object(
  {
    items: Type.Array(CareTip),
    generated_at: Type.String({ format: 'date-time', description: 'when this result was computed; the same while it is served from the cache' }),
  },
  { description: 'Care tips for a pet: breed-standard tips for its primary breed, then personalised ones' },
);
export type CareTipsResult = Static<typeof CareTipsResult>;

/**
 * The care-tips cache: one document per pet and request signature, in the shared read store so
 * every query-API replica serves the same result. Written by the query API (a cache of a
 * read-side computation, not a projection): `state_hash` covers the pet's inputs (profile,
 * analysis fields, usable photo ids, breed tips, season), `signature` adds the query options.
 */
export const CARE_TIPS_CACHE_COLLECTION = 'pet_care_tips_cache';

export type CareTipsCacheDoc = {
  _id: string;
  pet_id: string;
  state_hash: string;
  signature: string;
  result: CareTipsResult;
};
