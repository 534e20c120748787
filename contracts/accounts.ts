import { Type, type Static } from '@sinclair/typebox';

export const FeatureName = Type.String({ pattern: '^[a-z_]{1,40}$' });

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    features: Type.Optional(Type.Array(FeatureName, { maxItems: 100, description: 'omitted: every feature' })),
  },
  { additionalProperties: false },
);
export type CreateAccountBody = Static<typeof CreateAccountBody>;

export const CreatedAccount = Type.Object({
  account_id: Type.String(),
  api_key: Type.String({ description: 'shown once; only its hash is stored' }),
  key_id: Type.String({ description: 'names the key for revocation (DELETE /admin/accounts/{id}/keys/{keyId})' }),
});

export const IssuedApiKey = Type.Object({
  api_key: Type.String({ description: 'shown once; only its hash is stored' }),
  key_id: Type.String(),
});

export const AccountKeyParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  keyId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

export const AccountIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

export const SetFeaturesBody = Type.Object(
  { features: Type.Array(FeatureName, { maxItems: 100 }) },
  { additionalProperties: false },
);

export const SetPlanBody = Type.Object(
  { plan: Type.String({ pattern: '^[a-z0-9_-]{1,40}$', description: 'a plan name of RATE_LIMIT_PLANS; others get the default rate limit' }) },
  { additionalProperties: false },
);

export const AccountSummary = Type.Object({
  account_id: Type.String(),
  active: Type.Boolean(),
  features: Type.Array(Type.String()),
});

export const FeatureList = Type.Array(
  Type.Object({ name: Type.String(), description: Type.String(), enabled: Type.Boolean() }),
);

export const CapabilityList = Type.Array(Type.Object({ name: Type.String(), enabled: Type.Boolean() }));

export const PatchCapabilitiesBody = Type.Object(
  {
    capabilities: Type.Record(Type.String({ pattern: '^[a-z_]{1,40}$' }), Type.Boolean(), {
      minProperties: 1,
      maxProperties: 50,
      description: 'capability name → true (switch on) / false (switch off)',
    }),
  },
  { additionalProperties: false },
);
export type PatchCapabilitiesBody = Static<typeof PatchCapabilitiesBody>;

export const UsageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 1000 }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  start_date: Type.Optional(Type.String({ anyOf: [{ format: 'date' }, { format: 'date-time' }], description: 'ISO 8601; a date alone means its start' })),
  end_date: Type.Optional(Type.String({ anyOf: [{ format: 'date' }, { format: 'date-time' }], description: 'ISO 8601; a date alone means its end' })),
});
export type UsageQuery = Static<typeof UsageQuery>;

export const Usage = Type.Object({
  sub_id: Type.Union([Type.String(), Type.Null()]),
  images: Type.Integer(),
  votes: Type.Integer(),
  favourites: Type.Integer(),
  pets: Type.Integer(),
});
