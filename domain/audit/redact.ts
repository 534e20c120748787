/**
 * Secrets never leave through an audit answer or an export. What counts as one:
 * - API key hashes (`key_hash`): a hash lets anyone holding a leaked or guessed key confirm it,
 *   and the read model is keyed by it;
 * - webhook signing secrets in any form: the plaintext (`signing_secret`, never stored) and the
 *   AES-256-GCM ciphertext (`signing_secret_encrypted`, `signingSecretEncrypted` in a state). The
 *   ciphertext counts as a secret: it is worthless to an auditor, and together with a SECRETS_KEY
 *   that leaks later it is the secret itself.
 * Their values are replaced by REDACTED wherever they appear (events' data, metadata, folded
 * states), at any depth; the field itself stays, so an auditor still sees that a key was issued.
 */
export const REDACTED = '[redacted]';

export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'key_hash',
  'keyHash',
  'api_key',
  'apiKey',
  'signing_secret',
  'signingSecret',
  'signing_secret_encrypted',
  'signingSecretEncrypted',
  'secret',
]);

export const redactSecrets = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map(redactSecrets) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET_FIELDS.has(key) && inner !== null && inner !== undefined ? REDACTED : redactSecrets(inner)]),
    ) as T;
  }
  return value;
};

/** True when the value carries a redacted secret somewhere (an import of such an export cannot authenticate its keys). */
export const hasRedactions = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(hasRedactions);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, inner]) => (SECRET_FIELDS.has(key) && inner === REDACTED) || hasRedactions(inner));
  }
  return false;
};
