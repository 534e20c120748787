import { Type, type Static } from '@sinclair/typebox';
import { DomainError } from '../domain/errors.ts';

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

const CapabilityName = Type.String({ pattern: '^[a-z_]{1,40}$' });

/**
 * Either `{capabilities: {name: bool}}` or what GET /accounts/capabilities answers,
 * `[{name, enabled}]` (send back the list you read, with the switches changed).
 */
export const PatchCapabilitiesBody = Type.Union(
  [
    Type.Object(
      {
        capabilities: Type.Record(CapabilityName, Type.Boolean(), {
          minProperties: 1,
          maxProperties: 50,
          description: 'capability name → true (switch on) / false (switch off)',
        }),
      },
      { additionalProperties: false },
    ),
    Type.Array(Type.Object({ name: CapabilityName, enabled: Type.Boolean() }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 50,
      description: 'the list GET /accounts/capabilities answers: enabled true switches on, false off',
    }),
  ],
  { description: '`{capabilities: {name: bool}}`, or the `[{name, enabled}]` list GET answers' },
);
export type PatchCapabilitiesBody = Static<typeof PatchCapabilitiesBody>;

/** The switches of either form, by name; a name given twice with different values is refused. */
export const capabilityChangesOf = (body: PatchCapabilitiesBody): Record<string, boolean> => {
  if (!Array.isArray(body)) return body.capabilities;
  const changes: Record<string, boolean> = {};
  for (const [index, item] of body.entries()) {
    if (item.name in changes && changes[item.name] !== item.enabled) {
      throw new DomainError('validation_failed', `capability ${item.name} is switched both on and off`, { details: [`body/${index}/enabled contradicts an earlier item named ${item.name}`] });
    }
    changes[item.name] = item.enabled;
  }
  return changes;
};

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
