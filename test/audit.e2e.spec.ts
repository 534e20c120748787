import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../infrastructure/ids.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

/**
 * The auditor's admin API on a running service: stream events with metadata, the global log paged
 * by position with filters, an account's history, point-in-time state folded by the decider, the
 * NDJSON export — and no secret (API key, key hash, signing secret, its ciphertext) in any of them.
 */
let service: TestService;
let account: { account_id: string; api_key: string };
let other: { account_id: string; api_key: string };
const answers: string[] = [];
const secrets: string[] = [];

const admin = async (path: string) => {
  const response = await fetch(`${service.url}${path}`, { headers: { 'x-api-key': ADMIN_KEY } });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, text, body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
};

beforeAll(async () => {
  service = await startTestService({ referenceDataImport: false, webhookAllowPrivateTargets: true });
  account = await service.createAccount({ name: 'Audited' });
  other = await service.createAccount({ name: 'Other' });
  secrets.push(account.api_key, sha256(account.api_key), other.api_key, sha256(other.api_key));
  for (const value of [1, -1]) {
    const vote = await service.request('POST', '/v1/votes', { key: account.api_key, body: { image_id: `img${value + 1}`, value, sub_id: 'u1' } });
    expect(vote.status).toBe(201);
  }
  await service.request('POST', '/v1/votes', { key: other.api_key, body: { image_id: 'x', value: 1 } });
  const hook = await service.request('POST', '/v1/webhooks', {
    key: account.api_key,
    body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['vote.created'] },
  });
  expect(hook.status).toBe(201);
  secrets.push(hook.body.signing_secret);
  const rotated = await service.request('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`, { key: account.api_key });
  expect(rotated.status).toBe(200);
  secrets.push(rotated.body.signing_secret);
  // The ciphertexts as stored in the events.
  for (const event of await service.adapters.eventStore.readStream(`webhook-${hook.body.id}`)) {
    const ciphertext = (event.data as { signing_secret_encrypted?: string }).signing_secret_encrypted;
    if (ciphertext) secrets.push(ciphertext);
  }
  expect(secrets.length).toBe(8);
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

describe('GET /v1/admin/streams/{stream}', () => {
  it('lists the events of one stream with data and metadata, paged by revision', async () => {
    const first = await admin(`/v1/admin/streams/account-${account.account_id}?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(1);
    const [opened] = first.body.events;
    expect(opened).toMatchObject({ stream: `account-${account.account_id}`, revision: '0', type: 'AccountOpened' });
    expect(opened.position).toMatch(/^[0-9]+$/);
    expect(opened.metadata).toMatchObject({ actor: 'admin', account_id: account.account_id });
    expect(opened.metadata.request_id).toEqual(expect.any(String));
    expect(first.body.next_from_revision).toBe('1');
    const rest = await admin(`/v1/admin/streams/account-${account.account_id}?from_revision=1`);
    expect(rest.body.events.map((event: any) => event.type)).toEqual(['ApiKeyIssued']);
    expect(rest.body.events[0].data.key_hash).toBe('[redacted]');
    expect(rest.body.events[0].data.key_id).toEqual(expect.any(String));
    expect(rest.body.next_from_revision).toBeNull();
    // A revision past any 64-bit integer (the schema allows 20 digits) is an empty page, not a 500.
    const beyond = await admin(`/v1/admin/streams/account-${account.account_id}?from_revision=29012097060435840920`);
    expect(beyond.status).toBe(200);
    expect(beyond.body.events).toEqual([]);
    expect((await admin(`/v1/admin/events?from_position=99999999999999999999`)).status).toBeLessThan(500);
  });

  it('answers 404 for a stream without events and refuses account keys', async () => {
    expect((await admin('/v1/admin/streams/vote-1')).status).toBe(404);
    const denied = await service.request('GET', `/v1/admin/streams/account-${account.account_id}`, { key: account.api_key });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('admin_only');
  });
});

describe('GET /v1/admin/events', () => {
  it('pages the whole log by position (inclusive from_position, next_from_position to continue)', async () => {
    const all = await admin('/v1/admin/events?limit=1000');
    expect(all.status).toBe(200);
    const positions = all.body.events.map((event: any) => BigInt(event.position));
    expect(positions.length).toBeGreaterThan(6);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    expect(all.body.next_from_position).toBeNull();
    expect(BigInt(all.body.head_position)).toBe(positions.at(-1));

    const seen: string[] = [];
    let from: string | null = '0';
    while (from !== null) {
      const page: any = await admin(`/v1/admin/events?limit=2&from_position=${from}`);
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.events.map((event: any) => event.id));
      from = page.body.next_from_position;
    }
    expect(seen).toEqual(all.body.events.map((event: any) => event.id));

    const third = all.body.events[2];
    const fromThird = await admin(`/v1/admin/events?limit=1&from_position=${third.position}`);
    expect(fromThird.body.events[0].id).toBe(third.id);
  });

  it('takes positions beyond 2^53 and rejects malformed ones', async () => {
    const far = await admin('/v1/admin/events?from_position=18446744073709551615');
    expect(far.status).toBe(200);
    expect(far.body).toMatchObject({ events: [], next_from_position: null });
    expect((await admin('/v1/admin/events?from_position=-1')).status).toBe(400);
    expect((await admin('/v1/admin/events?from_position=1e3')).status).toBe(400);
  });

  it('filters by types, account and stream prefix, and lists the newest first with order=desc', async () => {
    const votes = await admin('/v1/admin/events?types=VoteCast');
    expect(votes.body.events).toHaveLength(3);
    const mine = await admin(`/v1/admin/events?types=VoteCast&account_id=${account.account_id}`);
    expect(mine.body.events).toHaveLength(2);
    expect(mine.body.events.every((event: any) => event.metadata.account_id === account.account_id)).toBe(true);
    const hooks = await admin('/v1/admin/events?stream_prefix=webhook-');
    expect(hooks.body.events.every((event: any) => event.stream.startsWith('webhook-'))).toBe(true);
    // The dispatcher records delivery outcomes on the endpoint's stream at any moment (its target
    // does not answer): among them, the account's own writes are these two, in order.
    const dispatcherOutcomes = new Set(['WebhookAttemptFailed', 'WebhookFailuresReset', 'WebhookDisabled']);
    const written = hooks.body.events.map((event: any) => event.type).filter((type: string) => !dispatcherOutcomes.has(type));
    expect(written).toEqual(['WebhookEndpointRegistered', 'WebhookSecretRotated']);
    expect(hooks.body.events.every((event: any) => event.data.signing_secret_encrypted === '[redacted]')).toBe(true);
    // Votes only: the dispatcher may append delivery events at any moment (later on slower adapters).
    const latest = await admin('/v1/admin/events?types=VoteCast&order=desc&limit=2');
    const all = await admin('/v1/admin/events?types=VoteCast&limit=1000');
    expect(latest.body.events.map((event: any) => event.id)).toEqual(all.body.events.slice(-2).reverse().map((event: any) => event.id));
  });
});

describe('GET /v1/admin/accounts/{id}/history', () => {
  it("lists everything the account did across streams, and nothing of another account's", async () => {
    const history = await admin(`/v1/admin/accounts/${account.account_id}/history`);
    expect(history.status).toBe(200);
    const types = history.body.events.map((event: any) => event.type);
    expect(types).toEqual(expect.arrayContaining(['AccountOpened', 'ApiKeyIssued', 'VoteCast', 'WebhookEndpointRegistered', 'WebhookSecretRotated']));
    expect(types.filter((type: string) => type === 'VoteCast')).toHaveLength(2);
    const streams = new Set(history.body.events.map((event: any) => event.stream));
    expect(streams.has(`account-${other.account_id}`)).toBe(false);
  });
});

describe('GET /v1/admin/streams/{stream}/state', () => {
  it("folds the aggregate's events by its decider up to a position or an instant", async () => {
    const events = (await admin(`/v1/admin/streams/account-${account.account_id}`)).body.events;
    const deactivated = await service.request('POST', `/v1/admin/accounts/${account.account_id}/deactivate`, { key: ADMIN_KEY });
    expect(deactivated.status).toBeLessThan(300);

    const now = await admin(`/v1/admin/streams/account-${account.account_id}/state`);
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ category: 'account', events_folded: 3, revision: '2' });
    expect(now.body.state.status).toBe('inactive');

    const before = await admin(`/v1/admin/streams/account-${account.account_id}/state?at_position=${events[1].position}`);
    expect(before.body).toMatchObject({ events_folded: 2, position: events[1].position });
    expect(before.body.state.status).toBe('active');
    expect(Object.keys(before.body.state.keys)).toHaveLength(1);
    expect(before.body.state.features).toContain('votes');

    const opened = await admin(`/v1/admin/streams/account-${account.account_id}/state?at_time=${encodeURIComponent(events[0].metadata.timestamp)}`);
    expect(opened.body.events_folded).toBeGreaterThanOrEqual(1);
    expect(opened.body.state.status).toBe('active');
    const early = await admin(`/v1/admin/streams/account-${account.account_id}/state?at_time=2000-01-01T00:00:00Z`);
    expect(early.body).toMatchObject({ events_folded: 0, position: null, state: { status: 'none' } });

    const webhook = (await admin('/v1/admin/events?stream_prefix=webhook-')).body.events[0].stream;
    const state = await admin(`/v1/admin/streams/${webhook}/state`);
    expect(state.body.state.signingSecretEncrypted).toBe('[redacted]');
    expect(state.body.state.status).toBe('enabled');

    expect((await admin(`/v1/admin/streams/account-${account.account_id}/state?at_time=x`)).status).toBe(400);
    expect((await admin(`/v1/admin/streams/account-${account.account_id}/state?at_time=2000-01-01T00:00:00Z&at_position=1`)).status).toBe(400);
    expect((await admin('/v1/admin/streams/nosuchcategory-1/state')).status).toBe(404);
  });
});

describe('GET /v1/admin/export', () => {
  it('streams the whole log, or one stream, as NDJSON in the audit shape', async () => {
    const whole = await admin('/v1/admin/export');
    expect(whole.status).toBe(200);
    const lines = whole.text.trimEnd().split('\n').map((line) => JSON.parse(line));
    const log = (await admin('/v1/admin/events?limit=1000')).body.events;
    expect(lines).toEqual(log);
    const one = await admin(`/v1/admin/export?stream=account-${other.account_id}`);
    expect(one.text.trimEnd().split('\n').map((line) => JSON.parse(line).type)).toEqual(['AccountOpened', 'ApiKeyIssued']);
  });
});

describe('secrets', () => {
  it('appear in no audit answer or export: no API key, key hash, signing secret or its ciphertext', async () => {
    await admin('/v1/admin/export');
    await admin(`/v1/admin/accounts/${account.account_id}/history`);
    expect(answers.length).toBeGreaterThan(10);
    const everything = answers.join('\n');
    expect(everything).toContain('[redacted]');
    for (const secret of secrets) expect(everything.includes(secret), `leaked ${secret.slice(0, 12)}…`).toBe(false);
  });
});
