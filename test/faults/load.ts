import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import sharp from 'sharp';
import { ADMIN_KEY } from '../service.ts';
import type { Receiver } from '../webhook-receiver.ts';

/** A request that has not answered after this long counts as a hang (every bound the service documents is shorter). */
export const HANG_MS = 60_000;

export type Outcome = {
  kind: 'write' | 'read';
  what: string;
  start: number;
  end: number;
  /** 0: no answer (connection refused or reset, or a hang past HANG_MS). */
  status: number;
  code?: string;
  retryAfter?: string | null;
  /** The spec's error envelope (statusCode, error, message, timestamp, path) on an error answer. */
  envelope?: boolean;
  hung?: boolean;
};

type Account = { key: string; hookAt: number | null };

/**
 * A steady, bounded mixed load through one base URL: votes and favourites from a few writers,
 * an image upload every few seconds, a reader, and a new account with a webhook registration every
 * 15 s. Records every acknowledged write, the webhook events it must cause, and every outcome.
 */
export class MixedLoad {
  readonly outcomes: Outcome[] = [];
  readonly votes = new Set<number>();
  readonly favourites = new Set<number>();
  /** Image id → its owner's key. */
  readonly images = new Map<string, string>();
  readonly webhooks = new Set<string>();
  /** `<event type>:<resource id>` of every acknowledged write whose account had a webhook before it was sent. */
  readonly expectedDeliveries = new Set<string>();
  private accounts: Account[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private seq = 0;

  constructor(
    private readonly baseUrl: () => string,
    private readonly receiver: Receiver,
    private readonly options: { writers?: number; pauseMs?: number; uploadEveryMs?: number; accountEveryMs?: number } = {},
  ) {}

  private async call(kind: Outcome['kind'], what: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
    const start = Date.now();
    const outcome: Outcome = { kind, what, start, end: start, status: 0 };
    try {
      const response = await fetch(`${this.baseUrl()}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(HANG_MS),
      });
      const text = await response.text();
      let parsed: any = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      outcome.status = response.status;
      if (response.status >= 400) {
        outcome.code = parsed?.code;
        outcome.retryAfter = response.headers.get('retry-after');
        outcome.envelope =
          typeof parsed === 'object' && parsed !== null && parsed.statusCode === response.status && typeof parsed.error === 'string' && 'message' in parsed && typeof parsed.timestamp === 'string';
      }
      return { status: response.status, body: parsed };
    } catch (error) {
      outcome.hung = (error as Error).name === 'TimeoutError';
      return { status: 0, body: null };
    } finally {
      outcome.end = Date.now();
      this.outcomes.push(outcome);
    }
  }

  private async addAccount(): Promise<void> {
    const account = await this.call('write', 'account', 'POST', '/v1/admin/accounts', ADMIN_KEY, { name: `faults ${this.seq++}` });
    if (account.status !== 201) return;
    const entry: Account = { key: account.body.api_key, hookAt: null };
    this.accounts.push(entry);
    const hook = await this.call('write', 'webhook', 'POST', '/v1/webhooks', entry.key, {
      url: this.receiver.url,
      description: 'fault suite receiver',
      enabled_events: ['vote.created', 'favourite.created', 'image.uploaded'],
    });
    if (hook.status === 201) {
      this.webhooks.add(hook.body.id);
      entry.hookAt = Date.now();
    }
  }

  private pick(): Account | undefined {
    return this.accounts[Math.floor(Math.random() * this.accounts.length)];
  }

  private expect(account: Account, sentAt: number, key: string): void {
    if (account.hookAt !== null && account.hookAt <= sentAt) this.expectedDeliveries.add(key);
  }

  private async writer(id: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const account = this.pick();
      if (account) {
        const sentAt = Date.now();
        const imageId = `f${id}-${this.seq}-${i}-${randomBytes(3).toString('hex')}`;
        if (i % 2 === 0) {
          const vote = await this.call('write', 'vote', 'POST', '/v1/votes', account.key, { image_id: imageId, value: i % 4 === 0 ? 1 : -1 });
          if (vote.status === 201) {
            this.votes.add(vote.body.id);
            this.expect(account, sentAt, `vote.created:${vote.body.id}`);
          }
        } else {
          const favourite = await this.call('write', 'favourite', 'POST', '/v1/favourites', account.key, { image_id: imageId });
          if (favourite.status === 201) {
            this.favourites.add(favourite.body.id);
            this.expect(account, sentAt, `favourite.created:${favourite.body.id}`);
          }
        }
      }
      await delay(this.options.pauseMs ?? 150);
    }
  }

  private async uploader(): Promise<void> {
    while (this.running) {
      const account = this.pick();
      if (account) {
        const noise = randomBytes(48 * 48 * 3);
        const png = await sharp(noise, { raw: { width: 48, height: 48, channels: 3 } }).png().toBuffer();
        const sentAt = Date.now();
        const upload = await this.call('write', 'upload', 'POST', '/v1/images/upload', account.key, {
          type: 'base64',
          image: `data:image/png;base64,${png.toString('base64')}`,
          sub_id: 'faults',
        });
        if (upload.status === 201) {
          this.images.set(upload.body.id, account.key);
          this.expect(account, sentAt, `image.uploaded:${upload.body.id}`);
        }
      }
      await delay(this.options.uploadEveryMs ?? 3000);
    }
  }

  private async reader(): Promise<void> {
    while (this.running) {
      const account = this.pick();
      if (account) await this.call('read', 'votes', 'GET', '/v1/votes?limit=5', account.key);
      await delay(400);
    }
  }

  private async registrar(): Promise<void> {
    while (this.running) {
      await delay(this.options.accountEveryMs ?? 15_000);
      if (this.running) await this.addAccount();
    }
  }

  /** Starts the load once the first account and its webhook exist. */
  async start(): Promise<void> {
    for (let attempt = 0; this.accounts.every((account) => account.hookAt === null); attempt++) {
      if (attempt > 20) throw new Error('could not create the first account and webhook');
      await this.addAccount();
      if (this.accounts.every((account) => account.hookAt === null)) await delay(2000);
    }
    this.running = true;
    const writers = this.options.writers ?? 3;
    this.loops = [...Array.from({ length: writers }, (_, id) => this.writer(id)), this.uploader(), this.reader(), this.registrar()];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One vote through the whole path, for the time to recover: acknowledged, readable, delivered. */
  async probe(): Promise<boolean> {
    const account = this.accounts.find((entry) => entry.hookAt !== null);
    if (!account) return false;
    const sentAt = Date.now();
    const vote = await this.call('write', 'probe', 'POST', '/v1/votes', account.key, { image_id: `probe-${sentAt}`, value: 1 });
    if (vote.status !== 201) return false;
    this.votes.add(vote.body.id);
    this.expect(account, sentAt, `vote.created:${vote.body.id}`);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const read = await this.call('read', 'probe', 'GET', `/v1/votes/${vote.body.id}`, account.key);
      const delivered = deliveriesByEvent(this.receiver).has(`vote.created:${vote.body.id}`);
      if (read.status === 200 && delivered) return true;
      await delay(250);
    }
    return false;
  }

  acknowledged(): number {
    return this.votes.size + this.favourites.size + this.images.size + this.webhooks.size;
  }

  /** Outcomes of one kind in a time window. */
  between(from: number, to: number, kind?: Outcome['kind']): Outcome[] {
    return this.outcomes.filter((outcome) => outcome.start >= from && outcome.start < to && (!kind || outcome.kind === kind));
  }
}

/**
 * The longest time clients of one kind saw no success: from the first failed request of a run of
 * failures to the answer of the next successful one (or the last failure's answer if none came).
 */
export const longestUnavailability = (outcomes: Outcome[], kind: Outcome['kind']): number => {
  const ofKind = outcomes.filter((outcome) => outcome.kind === kind).sort((a, b) => a.start - b.start);
  let longest = 0;
  let failingSince: number | null = null;
  let lastFailureEnd = 0;
  for (const outcome of ofKind) {
    const ok = outcome.status >= 200 && outcome.status < 300;
    if (!ok) {
      failingSince ??= outcome.start;
      lastFailureEnd = Math.max(lastFailureEnd, outcome.end);
    } else if (failingSince !== null) {
      longest = Math.max(longest, outcome.end - failingSince);
      failingSince = null;
    }
  }
  if (failingSince !== null) longest = Math.max(longest, lastFailureEnd - failingSince);
  return longest;
};

/** Deliveries the receiver got, by `<event type>:<resource id>`. */
export const deliveriesByEvent = (receiver: Receiver): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const request of receiver.received) {
    try {
      const body = JSON.parse(request.body) as { id?: unknown; _metadata?: { event_type?: string } };
      const key = `${body._metadata?.event_type}:${body.id}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    } catch {
      // not a delivery of ours
    }
  }
  return counts;
};
