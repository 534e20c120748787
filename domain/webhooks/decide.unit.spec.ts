import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { webhookAttemptsDecider, webhookDeliveryDecider, webhookEndpointDecider, webhookRegistryDecider } from './decide.ts';
import type { WebhookAttemptFailed, WebhookEndpointEvent, WebhookEndpointRegistered } from './endpoint.ts';
import type { WebhookRegistryEvent } from './registry.ts';
import { evolveWithAttempt, type AttemptEntry, type WebhookDeliveryAttempted, type WebhookDeliveryEvent, type WebhookDeliveryScheduled } from './delivery.ts';
import { STALE_SLOT_MS } from './policy.ts';

const now = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(now) + ms).toISOString();

describe('webhook endpoint decider', () => {
  const spec = deciderSpec(webhookEndpointDecider);
  const registered: WebhookEndpointRegistered = {
    type: 'WebhookEndpointRegistered',
    data: {
      webhook_id: 'w1',
      account_id: 'acc',
      url: 'https://example.com/hook',
      description: 'd',
      enabled_events: ['vote.created'],
      signing_secret_encrypted: 'enc1',
      legacy_unsigned: false,
      registered_at: now,
    },
  };
  const failed = (n: number): WebhookAttemptFailed => ({
    type: 'WebhookAttemptFailed',
    data: { webhook_id: 'w1', account_id: 'acc', delivery_id: 'd', consecutive_failures: n, failed_at: now },
  });
  const outcome = (success: boolean) => ({ type: 'RecordAttemptOutcome' as const, delivery_id: 'd', success, now });

  it('registers an endpoint (duplicate event names collapsed)', () =>
    spec
      .given([])
      .when({ type: 'RegisterEndpoint', ...registered.data, enabled_events: ['vote.created', 'vote.created'], now })
      .then([registered]));
  it('refuses a signed endpoint without a secret', () =>
    spec.given([]).when({ type: 'RegisterEndpoint', ...registered.data, signing_secret_encrypted: null, now }).thenThrows('validation_failed'));
  it('rotates the secret of the owner’s endpoint only', () => {
    spec.given([registered]).when({ type: 'RotateSecret', account_id: 'acc', signing_secret_encrypted: 'enc2', now }).then([
      { type: 'WebhookSecretRotated', data: { webhook_id: 'w1', account_id: 'acc', signing_secret_encrypted: 'enc2', rotated_at: now } },
    ]);
    spec.given([registered]).when({ type: 'RotateSecret', account_id: 'x', signing_secret_encrypted: 'e', now }).thenThrows('forbidden');
    spec.given([]).when({ type: 'RotateSecret', account_id: 'acc', signing_secret_encrypted: 'e', now }).thenThrows('not_found');
  });
  it('deletes once', () => {
    const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { webhook_id: 'w1', account_id: 'acc', deleted_at: now } };
    spec.given([registered]).when({ type: 'DeleteEndpoint', account_id: 'acc', now }).then([deleted]);
    spec.given([registered, deleted]).when({ type: 'DeleteEndpoint', account_id: 'acc', now }).thenThrows('not_found');
  });
  it('counts consecutive failures and disables at the tenth', () => {
    spec.given([registered]).when(outcome(false)).then([failed(1)]);
    const nine = Array.from({ length: 9 }, (_, i) => failed(i + 1));
    spec.given([registered, ...nine]).when(outcome(false)).then([
      failed(10),
      {
        type: 'WebhookDisabled',
        data: { webhook_id: 'w1', account_id: 'acc', url: registered.data.url, consecutive_failures: 10, reason: '10 consecutive failed delivery attempts', disabled_at: now },
      },
    ]);
  });
  it('a success resets the count; nothing to reset when it is zero', () => {
    spec.given([registered, failed(1), failed(2)]).when(outcome(true)).then([
      { type: 'WebhookFailuresReset', data: { webhook_id: 'w1', account_id: 'acc', delivery_id: 'd', reset_at: now } },
    ]);
    spec.given([registered]).when(outcome(true)).thenNothing();
  });
  it('a disabled endpoint stays disabled and counts nothing more', () => {
    const disabled: WebhookEndpointEvent = {
      type: 'WebhookDisabled',
      data: { webhook_id: 'w1', account_id: 'acc', url: 'u', consecutive_failures: 10, reason: 'r', disabled_at: now },
    };
    spec.given([registered, disabled]).when(outcome(false)).thenNothing();
    spec.given([registered, disabled]).when(outcome(true)).thenNothing();
  });
});

describe('webhook registry decider (five endpoints per account)', () => {
  const spec = deciderSpec(webhookRegistryDecider);
  const taken = (id: string, when = now): WebhookRegistryEvent => ({ type: 'WebhookSlotTaken', data: { account_id: 'acc', webhook_id: id, taken_at: when } });
  const five = ['a', 'b', 'c', 'd', 'e'].map((id) => taken(id));
  const take = (live: string[], when = now) => ({ type: 'TakeSlot' as const, account_id: 'acc', webhook_id: 'new', live_webhook_ids: live, now: when });

  it('takes a slot while fewer than five are held', () => spec.given(five.slice(0, 4)).when(take(['a', 'b', 'c', 'd'])).then([taken('new')]));
  it('refuses the sixth (disabled endpoints still hold their slot)', () => spec.given(five).when(take(['a', 'b', 'c', 'd', 'e'])).thenThrows('webhook_limit_reached'));
  it('counts a young slot whose endpoint is not written yet', () => spec.given(five).when(take([])).thenThrows('webhook_limit_reached'));
  it('gives back a stale slot whose endpoint never appeared', () => {
    const later = at(STALE_SLOT_MS + 1);
    spec.given(five).when(take(['a', 'b', 'c', 'd'], later)).then([
      { type: 'WebhookSlotReleased', data: { account_id: 'acc', webhook_id: 'e', released_at: later } },
      taken('new', later),
    ]);
  });
  it('releases a held slot; releasing a free one does nothing', () => {
    spec.given(five).when({ type: 'ReleaseSlot', account_id: 'acc', webhook_id: 'a', now }).then([
      { type: 'WebhookSlotReleased', data: { account_id: 'acc', webhook_id: 'a', released_at: now } },
    ]);
    spec.given([]).when({ type: 'ReleaseSlot', account_id: 'acc', webhook_id: 'a', now }).thenNothing();
  });
});

describe('webhook delivery decider', () => {
  const spec = deciderSpec(webhookDeliveryDecider);
  const scheduled: WebhookDeliveryScheduled = {
    type: 'WebhookDeliveryScheduled',
    data: { delivery_id: 'd', webhook_id: 'w1', account_id: 'acc', event_id: 'e', event_type: 'vote.created', payload: { id: 1 }, scheduled_at: now },
  };
  const attempt = (n: number, success: boolean) => ({
    type: 'RecordAttempt' as const,
    attempt: n,
    started_at: now,
    duration_ms: 5,
    status_code: success ? 200 : 500,
    error: success ? null : 'status 500',
    success,
    jitter_ms: 100,
    now,
  });
  const attempted = (n: number, outcome: WebhookDeliveryAttempted['data']['outcome'], next: string | null): WebhookDeliveryAttempted => ({
    type: 'WebhookDeliveryAttempted',
    data: {
      delivery_id: 'd',
      webhook_id: 'w1',
      account_id: 'acc',
      attempt: n,
      started_at: now,
      duration_ms: 5,
      status_code: outcome === 'succeeded' ? 200 : 500,
      error: outcome === 'succeeded' ? null : 'status 500',
      outcome,
      next_attempt_at: next,
    },
  });

  it('schedules once per event and endpoint', () => {
    spec.given([]).when({ type: 'ScheduleDelivery', ...scheduled.data, now }).then([scheduled]);
    spec.given([scheduled]).when({ type: 'ScheduleDelivery', ...scheduled.data, now }).thenNothing();
  });
  it('retries after 1 s then 2 s (plus jitter) and fails after the third attempt', () => {
    spec.given([scheduled]).when(attempt(1, false)).then([attempted(1, 'retrying', at(1100))]);
    spec.given([scheduled, attempted(1, 'retrying', at(1100))]).when(attempt(2, false)).then([attempted(2, 'retrying', at(2100))]);
    spec
      .given([scheduled, attempted(1, 'retrying', at(1100)), attempted(2, 'retrying', at(2100))])
      .when(attempt(3, false))
      .then([attempted(3, 'failed', null)]);
  });
  it('succeeds on any attempt', () => spec.given([scheduled]).when(attempt(1, true)).then([attempted(1, 'succeeded', null)]));
  it('refuses an attempt recorded twice (two workers) or after the end', () => {
    spec.given([scheduled, attempted(1, 'retrying', at(1100))]).when(attempt(1, false)).thenThrows('conflict');
    spec.given([scheduled, attempted(1, 'succeeded', null)]).when(attempt(2, false)).thenThrows('conflict');
  });
  it('redelivers a finished delivery with a new round of attempts', () => {
    const finished: WebhookDeliveryEvent[] = [scheduled, attempted(1, 'retrying', at(1100)), attempted(2, 'retrying', at(2100)), attempted(3, 'failed', null)];
    const redeliver = { type: 'RequestRedelivery' as const, delivery_id: 'd', account_id: 'acc', webhook_id: 'w1', now };
    const requested: WebhookDeliveryEvent = { type: 'WebhookRedeliveryRequested', data: { delivery_id: 'd', webhook_id: 'w1', account_id: 'acc', requested_at: now } };
    spec.given(finished).when(redeliver).then([requested]);
    spec.given([...finished, requested]).when(attempt(4, false)).then([attempted(4, 'retrying', at(1100))]);
    spec.given([scheduled]).when(redeliver).thenThrows('delivery_pending');
    spec.given(finished).when({ ...redeliver, account_id: 'x' }).thenThrows('forbidden');
    spec.given(finished).when({ ...redeliver, webhook_id: 'other' }).thenThrows('not_found');
  });
  it('records a first attempt as the one event that opens the stream (no Scheduled before it)', () => {
    const opening = scheduled.data;
    const opened = (outcome: WebhookDeliveryAttempted['data']['outcome'], next: string | null): WebhookDeliveryAttempted => ({
      ...attempted(1, outcome, next),
      data: { ...attempted(1, outcome, next).data, opened: opening },
    });
    spec.given([]).when({ ...attempt(1, true), opening }).then([opened('succeeded', null)]);
    spec.given([]).when({ ...attempt(1, false), opening }).then([opened('retrying', at(1100))]);
    // the retries continue on it as on a stream that began with WebhookDeliveryScheduled
    spec.given([opened('retrying', at(1100))]).when(attempt(2, false)).then([attempted(2, 'retrying', at(2100))]);
    spec.given([opened('retrying', at(1100))]).when(attempt(1, false)).thenThrows('conflict');
    // once anything is recorded the opening is not repeated (a parked delivery's first attempt)
    spec.given([scheduled]).when({ ...attempt(1, true), opening }).then([attempted(1, 'succeeded', null)]);
    // without its opening a first attempt has nothing to open
    spec.given([]).when(attempt(1, true)).thenThrows('conflict');
    const state = [opened('retrying', at(1100))].reduce(webhookDeliveryDecider.evolve, webhookDeliveryDecider.initialState());
    expect(state).toMatchObject({ status: 'pending', deliveryId: 'd', webhookId: 'w1', eventType: 'vote.created', payload: { id: 1 }, attempts: 1, roundAttempts: 1, nextAttemptAt: at(1100) });
  });
  it('decides a redelivery on the delivery log when given it (attempts live in attempt records, not on the stream)', () => {
    const redeliver = { type: 'RequestRedelivery' as const, delivery_id: 'd', account_id: 'acc', webhook_id: 'w1', now };
    const requested: WebhookDeliveryEvent = { type: 'WebhookRedeliveryRequested', data: { delivery_id: 'd', webhook_id: 'w1', account_id: 'acc', requested_at: now } };
    const logged = (status: 'pending' | 'succeeded' | 'failed') => ({ status, webhook_id: 'w1', account_id: 'acc' });
    // No stream at all (its one attempt is in an attempt record): the log says it succeeded.
    spec.given([]).when({ ...redeliver, logged: logged('succeeded') }).then([requested]);
    spec.given([]).when({ ...redeliver, logged: logged('pending') }).thenThrows('delivery_pending');
    spec.given([]).when({ ...redeliver, logged: null }).thenThrows('not_found');
    spec.given([]).when({ ...redeliver, logged: logged('failed'), account_id: 'x' }).thenThrows('forbidden');
    spec.given([]).when({ ...redeliver, logged: logged('failed'), webhook_id: 'other' }).thenThrows('not_found');
    // The log, read after the stream, has seen the stream's events too: it decides.
    spec.given([scheduled]).when({ ...redeliver, logged: logged('succeeded') }).then([requested]);
  });
  it('reads an attempt entry as the WebhookDeliveryAttempted it stands for', () => {
    const entry: AttemptEntry = { ...attempted(1, 'retrying', at(1100)).data, opened: scheduled.data, signature: { t: 1, secret_id: 'abc' } };
    const fromEntry = evolveWithAttempt(webhookDeliveryDecider.initialState(), entry);
    const fromEvent = webhookDeliveryDecider.evolve(webhookDeliveryDecider.initialState(), { ...attempted(1, 'retrying', at(1100)), data: { ...attempted(1, 'retrying', at(1100)).data, opened: scheduled.data } });
    expect(fromEntry).toEqual(fromEvent);
    expect(fromEntry).toMatchObject({ status: 'pending', attempts: 1, roundAttempts: 1, nextAttemptAt: at(1100) });
  });
  it('abandons a pending delivery only', () => {
    expect(webhookDeliveryDecider.decide({ type: 'AbandonDelivery', reason: 'endpoint disabled', now }, webhookDeliveryDecider.evolve(webhookDeliveryDecider.initialState(), scheduled))).toHaveLength(1);
    spec.given([scheduled, attempted(1, 'succeeded', null)]).when({ type: 'AbandonDelivery', reason: 'x', now }).thenNothing();
  });
});

describe('webhook attempt records', () => {
  const spec = deciderSpec(webhookAttemptsDecider);
  const entry = (deliveryId: string, webhookId = 'w1'): AttemptEntry => ({
    delivery_id: deliveryId,
    webhook_id: webhookId,
    account_id: 'acc',
    attempt: 1,
    started_at: now,
    duration_ms: 3,
    status_code: 204,
    error: null,
    outcome: 'succeeded',
    next_attempt_at: null,
    signature: { t: 1_700_000_000, secret_id: '0123456789abcdef' },
  });
  it('records the attempts to one endpoint in one event, once', () => {
    const attempts = [entry('d1'), entry('d2')];
    const recorded = { type: 'WebhookAttemptsRecorded' as const, data: { webhook_id: 'w1', account_id: 'acc', attempts } };
    spec.given([]).when({ type: 'RecordAttempts', webhook_id: 'w1', account_id: 'acc', attempts }).then([recorded]);
    spec.given([recorded]).when({ type: 'RecordAttempts', webhook_id: 'w1', account_id: 'acc', attempts }).thenThrows('conflict');
    spec.given([]).when({ type: 'RecordAttempts', webhook_id: 'w1', account_id: 'acc', attempts: [entry('d3', 'w2')] }).thenThrows('validation_failed');
    spec.given([]).when({ type: 'RecordAttempts', webhook_id: 'w1', account_id: 'acc', attempts: [] }).thenNothing();
    expect([recorded].reduce(webhookAttemptsDecider.evolve, webhookAttemptsDecider.initialState()).attempts).toEqual(attempts);
  });
});
