import { Collections, type AccountDoc } from '../contracts/read-models.ts';
import type { WebhookDisabled } from '../domain/webhooks/endpoint.ts';
import type { Mailer } from '../infrastructure/mail/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/** Tells the account owner that an endpoint was disabled (at least once: a retried message may mail twice). */
export const sendDisabledNotice = async (
  event: WebhookDisabled['data'],
  deps: { readStore: ReadStore; mailer: Mailer },
): Promise<{ sent: boolean; reason?: string }> => {
  const account = await deps.readStore.collection<AccountDoc>(Collections.accounts).get(event.account_id);
  if (!account?.email) return { sent: false, reason: 'the account has no e-mail address' };
  await deps.mailer.send({
    to: account.email,
    subject: `Webhook endpoint disabled: ${event.url}`,
    text: [
      `Your webhook endpoint ${event.webhook_id} (${event.url}) was disabled on ${event.disabled_at}`,
      `after ${event.consecutive_failures} consecutive failed delivery attempts.`,
      '',
      'A disabled endpoint cannot be enabled again and still counts toward the limit of five endpoints.',
      'Fix the receiver, delete this endpoint (DELETE /v1/webhooks/{id}) and register a new one.',
      'The delivery log (GET /v1/webhooks/{id}/deliveries) shows what went wrong.',
    ].join('\n'),
  });
  return { sent: true };
};
