import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Schema pieces every resource uses. Each resource schema in contracts/ is the single source for
 * request validation, response serialisation, the TypeScript type (Static<>) and the OpenAPI
 * document.
 */
export const ErrorEnvelope = Type.Object(
  {
    statusCode: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    path: Type.String(),
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.String(),
    code: Type.Optional(Type.String()),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true, description: 'Every error, whatever the status.' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

const errorRef = Type.Ref('ErrorEnvelope');

/** The error responses an operation documents, by status. */
export const errors = (...statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries([...new Set([400, 401, 403, 429, 500, 503, ...statuses])].map((status) => [status, errorRef]));

/** Booleans in query strings: true/false and 1/0 (TheCatAPI clients send has_breeds=1). */
export const QueryBoolean = (description: string, defaultValue?: boolean) =>
  Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')], {
    description,
    ...(defaultValue === undefined ? {} : { default: defaultValue ? 'true' : 'false' }),
  });
export const queryBoolean = (value: string | undefined): boolean | undefined =>
  value === undefined ? undefined : value === 'true' || value === '1';

export const SubId = Type.String({ minLength: 1, maxLength: 255, description: 'Your own identifier for the end user' });
export const ImageId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const CountryCode = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' });
export const IpAddress = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }], maxLength: 45 });
export const NumericId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const NumericIdParams = Type.Object({ id: NumericId });
export const Success = Type.Object({ message: Type.Literal('SUCCESS') });

/** Species ids: 1 cat, 2 dog, 3 horse. */
export const SpeciesIdParam = Type.String({ pattern: '^[0-9]{1,3}$', description: '1 cat, 2 dog, 3 horse' });
export const CommaList = (description: string) => Type.String({ maxLength: 1000, description });
