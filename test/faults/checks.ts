import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { voteStream } from '../../domain/votes/vote.ts';
import { favouriteStream } from '../../domain/favourites/favourite.ts';
import { imageStream } from '../../domain/images/image.ts';
import { webhookStream } from '../../domain/webhooks/endpoint.ts';
import { ADMIN_KEY } from '../service.ts';
import type { Receiver } from '../webhook-receiver.ts';
import { deliveriesByEvent, type MixedLoad } from './load.ts';

export type Verdict = {
  acknowledged: number;
  /** Acknowledged writes whose stream is not in the event store. */
  lost: string[];
  replayEqual: boolean;
  replayDetail: string;
  expectedDeliveries: number;
  delivered: number;
  /** Deliveries beyond the first of an event. */
  duplicated: number;
  undelivered: string[];
  /** Uploaded images still `to_be_reviewed` at the end. */
  stuckImages: string[];
};

const call = async (url: string, method: string, body?: unknown, key = ADMIN_KEY): Promise<{ status: number; body: any }> => {
  const response = await fetch(url, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
};

/** Every acknowledged write's stream is in the event store (the embedded log file in DATA_DIR). */
export const lostWrites = async (dataDir: string, load: MixedLoad): Promise<string[]> => {
  const store = sqliteEventStore(join(dataDir, 'events.db'));
  try {
    const streams = [
      ...[...load.votes].map(voteStream),
      ...[...load.favourites].map(favouriteStream),
      ...[...load.images.keys()].map(imageStream),
      ...[...load.webhooks].map(webhookStream),
    ];
    const present = new Set<string>();
    for (let start = 0; start < streams.length; start += 500) {
      for (const name of await store.existingStreams(streams.slice(start, start + 500))) present.add(name);
    }
    return streams.filter((name) => !present.has(name));
  } finally {
    await store.close();
  }
};

/** How a scenario's read models are compared with a full replay: the existing verify, as ops run it. */
export type ReplayCheck =
  /** `npm run rebuild -- all --verify` with the service's environment (the separate-process topology on MongoDB). */
  | { cli: Record<string, string> }
  /** `POST /v1/admin/operations/verify` on the all-in-one (its embedded read store is its own file). */
  | { url: string };

const verifyByCli = async (env: Record<string, string>): Promise<{ identical: boolean; detail: string }> => {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'runtime/rebuild-cli.ts', 'all', '--verify'], {
      env: { ...process.env, ...env },
      timeout: 300_000,
      maxBuffer: 16 << 20,
    });
    return { identical: stdout.includes('verify passed'), detail: stdout.split('\n').filter((line) => line.includes('verify')).join(' ') };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    const lines = `${failed.stdout ?? ''}\n${failed.stderr ?? ''}`.split('\n').filter((line) => /differ|e\.g\.|FAILED|Error/.test(line));
    return { identical: false, detail: lines.slice(0, 20).join('\n') || failed.message };
  }
};

const verifyByHttp = async (url: string): Promise<{ identical: boolean; detail: string }> => {
  const started = await call(`${url}/v1/admin/operations/verify`, 'POST', { projection: 'all' });
  if (started.status !== 202) return { identical: false, detail: `verify refused: ${started.status} ${JSON.stringify(started.body)}` };
  let operation = started.body;
  const deadline = Date.now() + 300_000;
  while (operation.status === 'running' && Date.now() < deadline) {
    await delay(500);
    operation = (await call(`${url}/v1/admin/operations/${started.body.id}`, 'GET')).body;
  }
  const failing = (operation.results ?? []).filter((result: { identical: boolean }) => !result.identical);
  if (operation.status === 'passed' && failing.length === 0) return { identical: true, detail: `${operation.results.length} read models identical` };
  return { identical: false, detail: `verify ${operation.status}: ${JSON.stringify(failing.length > 0 ? failing : operation).slice(0, 2000)}` };
};

/**
 * Every read model rebuilt from position 0 in a scratch store and compared with the live one
 * (runtime/verify.ts, behind both the CLI and the admin operation). Tried again a few times while a
 * fault's aftermath settles (a document still moving is compared again by the verify itself).
 */
export const verifyReplay = async (check: ReplayCheck, attempts = 3): Promise<{ identical: boolean; detail: string }> => {
  let result = { identical: false, detail: '' };
  for (let attempt = 0; attempt < attempts; attempt++) {
    result = 'cli' in check ? await verifyByCli(check.cli) : await verifyByHttp(check.url).catch((error) => ({ identical: false, detail: String(error) }));
    if (result.identical) return result;
    await delay(5000);
  }
  return result;
};

/** Waits (bounded) until every expected webhook event reached the receiver, then counts. */
export const deliveryVerdict = async (load: MixedLoad, receiver: Receiver, waitMs: number) => {
  const deadline = Date.now() + waitMs;
  let undelivered: string[] = [];
  for (;;) {
    const counts = deliveriesByEvent(receiver);
    undelivered = [...load.expectedDeliveries].filter((key) => !counts.has(key));
    if (undelivered.length === 0 || Date.now() > deadline) {
      const ours = [...load.expectedDeliveries].filter((key) => counts.has(key));
      const duplicated = ours.reduce((sum, key) => sum + (counts.get(key)! - 1), 0);
      return { expected: load.expectedDeliveries.size, delivered: ours.length, duplicated, undelivered };
    }
    await delay(1000);
  }
};

/** Waits (bounded) until no uploaded image of the load is `to_be_reviewed` any more. */
export const stuckImages = async (baseUrl: string, load: MixedLoad, waitMs: number): Promise<string[]> => {
  const deadline = Date.now() + waitMs;
  let pending = [...load.images.keys()];
  while (pending.length > 0) {
    const still: string[] = [];
    for (const id of pending) {
      const status = await call(`${baseUrl}/v1/images/${id}/status`, 'GET', undefined, load.images.get(id)).catch(() => ({ status: 0, body: null }));
      if (status.status !== 200 || status.body?.status === 'to_be_reviewed') still.push(id);
    }
    pending = still;
    if (pending.length === 0 || Date.now() > deadline) break;
    await delay(2000);
  }
  return pending;
};

/** Every check the suite makes once a scenario's load has stopped. */
export const verdictAfter = async (options: {
  dataDir: string;
  baseUrl: string;
  replay: ReplayCheck;
  load: MixedLoad;
  receiver: Receiver;
  settleMs: number;
}): Promise<Verdict> => {
  const { load, receiver } = options;
  const deliveries = await deliveryVerdict(load, receiver, options.settleMs);
  const stuck = await stuckImages(options.baseUrl, load, options.settleMs);
  const lost = await lostWrites(options.dataDir, load);
  const replay = await verifyReplay(options.replay);
  return {
    acknowledged: load.acknowledged(),
    lost,
    replayEqual: replay.identical,
    replayDetail: replay.detail,
    expectedDeliveries: deliveries.expected,
    delivered: deliveries.delivered,
    duplicated: deliveries.duplicated,
    undelivered: deliveries.undelivered,
    stuckImages: stuck,
  };
};
