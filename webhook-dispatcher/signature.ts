import { createHmac } from 'node:crypto';

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + raw body>`, keyed with the
 * signing secret string as issued (including its `whsec_` prefix).
 */
export const SIGNATURE_HEADER = 'x-webhook-signature';

export const signatureHeader = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex')}`;
