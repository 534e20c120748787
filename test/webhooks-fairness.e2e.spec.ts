import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

/**
 * Per-endpoint fairness: a receiver that never answers (every attempt runs into the 5 s timeout)
 * must not slow down deliveries to a healthy receiver subscribed to the same events.
 */
let service: TestService;
const receivers: Receiver[] = [];
beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true, referenceDataImport: false });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await service.dispose();
});

const VOTES = 80; // more than one endpoint's share of concurrent attempts (64)
const PACE_MS = 40; // 25 votes/s

describe('webhook fairness between endpoints', () => {
  it('a black-hole endpoint (5 s timeouts) does not hold back a healthy one: every vote arrives promptly, at the rate votes are cast', async () => {
    const { api_key } = await service.createAccount();
    const blackHole = await startReceiver(() => 'hang');
    const healthy = await startReceiver(() => 200);
    receivers.push(blackHole, healthy);
    for (const url of [blackHole.url, healthy.url]) {
      const created = await service.request('POST', '/v1/webhooks', { key: api_key, body: { url, enabled_events: ['vote.created'] } });
      expect(created.status).toBe(201);
    }

    const castAt = new Map<number, number>();
    const started = performance.now();
    for (let i = 0; i < VOTES; i++) {
      const response = await service.request('POST', '/v1/votes', { key: api_key, body: { image_id: `fair${i}`, value: 1 } });
      expect(response.status).toBe(201);
      castAt.set(response.body.id as number, performance.now());
      const next = started + (i + 1) * PACE_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
    const castFor = performance.now() - started;
    await healthy.waitFor(VOTES, 4000); // well within the black hole's first timeout

    const latencies = healthy.received.map((request) => request.at - (castAt.get(JSON.parse(request.body).id as number) ?? Infinity)).sort((a, b) => a - b);
    const spread = healthy.received[VOTES - 1].at - healthy.received[0].at;
    // every vote once, each well before the black hole's 5 s timeout, at about the pace they were cast
    expect(new Set(healthy.received.map((request) => JSON.parse(request.body).id)).size).toBe(VOTES);
    expect(latencies[latencies.length - 1]).toBeLessThan(2000);
    expect(latencies[Math.floor(latencies.length / 2)]).toBeLessThan(500);
    expect(spread).toBeLessThan(castFor + 1500);
    // the black hole got its attempts too (they hang; none has timed out yet)
    expect(blackHole.received.length).toBeGreaterThan(0);
  });
});
