import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openChromiumPage } from './chromium.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

/**
 * The operations console in a real browser: Debian's chromium (installed by .ci/run) driven by
 * playwright-core. It logs in, checks the numbers on the page against the admin API, opens a
 * stream with its point-in-time state, runs a verify to the end, and saves screenshots under
 * test-output/console/.
 */
const SHOTS = join(process.cwd(), 'test-output', 'console');

let service: TestService;
let page: Page;
let closeBrowser: (() => Promise<void>) | undefined;
let accountId: string;

const api = async (path: string) => {
  const response = await fetch(`${service.url}/v1${path}`, { headers: { 'x-api-key': ADMIN_KEY } });
  expect(response.status).toBe(200);
  return response.json() as Promise<any>;
};

const cells = (selector: string) =>
  page.$$eval(selector, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));

describe.skipIf(!hasChromium())('operations console in chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    service = await startTestService({ referenceDataImport: false, webhookAllowPrivateTargets: true });
    const account = await service.createAccount({ name: 'Console' });
    accountId = account.account_id;
    for (const [i, value] of [1, -1, 1].entries()) {
      expect((await service.request('POST', '/v1/votes', { key: account.api_key, body: { image_id: `c${i}`, value } })).status).toBe(201);
    }
    expect((await service.request('POST', '/v1/webhooks', { key: account.api_key, body: { url: 'http://127.0.0.1:9/h', enabled_events: ['vote.created'] } })).status).toBe(201);
    await service.adapters.readStore.waitForCheckpoints(['votes', 'accounts', 'webhooks'], await service.adapters.eventStore.headPosition(), 10_000);
    ({ page, close: closeBrowser } = await openChromiumPage({ width: 1400, height: 1000 }));
  }, 120_000);

  afterAll(async () => {
    await closeBrowser?.();
    await service?.dispose();
  });

  it('refuses a wrong key and logs in with the admin key', async () => {
    await page.goto(`${service.url}/v1/admin/console`);
    await page.screenshot({ path: join(SHOTS, '1-login.png') });
    await page.fill('#admin-key', 'not-the-admin-key-at-all');
    await page.click('#login-form button[type=submit]');
    await expect.poll(() => page.textContent('#login-error')).toMatch(/admin|key/i);
    await page.fill('#admin-key', ADMIN_KEY);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#projections tbody tr[data-projection="votes"]');
    expect(await page.isVisible('#console')).toBe(true);
    expect(await page.isVisible('#login')).toBe(false);
  }, 30_000);

  it('shows the projections, consumer groups, webhooks and latest events the API reports', async () => {
    // The webhook's failing deliveries append attempt records while the page is open, so the head
    // moves on: compare the page with the API once the page's 5 s refresh has caught up with it.
    const view = async () => {
      const status = await api('/admin/ops/status');
      const latest = await api('/admin/events?order=desc&limit=20');
      const onPage = {
        projections: (await cells('#projections tbody tr')).map((row) => [row[0], row[1]]),
        events: (await cells('#events tbody tr')).map((row) => row[0]),
        head: (await page.textContent('#head'))?.match(/head (\S+)/)?.[1],
      };
      const fromApi = {
        projections: status.projections.map((projection: any) => [projection.name, projection.checkpoint]),
        events: latest.events.map((event: any) => event.position),
        head: String(status.head_position),
      };
      return { status, onPage, fromApi };
    };
    await expect.poll(async () => {
      const { onPage, fromApi } = await view();
      return JSON.stringify(onPage) === JSON.stringify(fromApi) ? 'agrees' : { onPage, fromApi };
    }, { timeout: 20_000, interval: 500 }).toBe('agrees');
    const { status } = await view();
    const rows = await cells('#projections tbody tr');
    expect(rows.find((row) => row[0] === 'votes')?.[2]).toBe('0');
    expect((await cells('#groups tbody tr')).map((row) => row[0])).toEqual(status.consumer_groups.map((group: any) => group.group));
    expect(await page.textContent('#webhook-counts')).toContain(`endpoints: ${status.webhooks.endpoints.enabled} enabled, 0 disabled`);
    await page.screenshot({ path: join(SHOTS, '2-overview.png'), fullPage: true });
  });

  it('opens a stream with its events and its state at a position', async () => {
    const stream = `account-${accountId}`;
    await page.click(`#events a[data-stream="${stream}"]`);
    await page.waitForSelector('#stream-view:not([hidden]) #stream-events tbody tr');
    const api_events = (await api(`/admin/streams/${stream}`)).events;
    const rows = await cells('#stream-events tbody tr');
    expect(rows.map((row) => row[2])).toEqual(api_events.map((event: any) => event.type));
    await expect.poll(async () => JSON.parse((await page.textContent('#state')) || '{}').status).toBe('active');
    await page.fill('#state-position', api_events[0].position);
    await page.click('#state-form button');
    await expect.poll(() => page.textContent('#state-summary')).toContain('1 events folded by the account decider');
    expect(JSON.parse((await page.textContent('#state')) ?? '{}').keys).toEqual({});
    await page.screenshot({ path: join(SHOTS, '3-stream.png'), fullPage: true });
  });

  it('runs a verify with progress to a passing result', async () => {
    await page.selectOption('#verify-projection', 'all');
    await page.click('#verify-button');
    await page.waitForSelector('#verify-status[data-status="passed"]', { timeout: 60_000 });
    expect(await page.getAttribute('#verify-progress', 'value')).toBe('100');
    const results = await cells('#verify-results tbody tr');
    expect(results.map((row) => row[0])).toEqual((await api('/admin/ops/status')).projections.map((p: any) => p.name).filter((name: string) => name !== 'relay'));
    expect(results.every((row) => row[3] === 'identical')).toBe(true);
    const [operation] = await api('/admin/operations');
    expect(operation).toMatchObject({ status: 'passed', projection: 'all' });
    await page.screenshot({ path: join(SHOTS, '4-verify.png'), fullPage: true });
  }, 90_000);
});
