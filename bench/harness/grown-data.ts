import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAccount } from '../../command-api/handlers/accounts.ts';
import { claimKey } from '../../command-api/handlers/favourites.ts';
import type { Event } from '../../domain/decider.ts';
import { favouriteClaimStream } from '../../domain/favourites/claim.ts';
import { favouriteClaimDecider, favouriteDecider } from '../../domain/favourites/decide.ts';
import { favouriteStream } from '../../domain/favourites/favourite.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { blobKeysFor, imageStream, type ImageEvent } from '../../domain/images/image.ts';
import { voteDecider } from '../../domain/votes/decide.ts';
import { voteStream } from '../../domain/votes/vote.ts';
import type { EventMetadata } from '../../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { toEventLine, type EventLine } from '../../infrastructure/event-store/ndjson.ts';
import { newEventId } from '../../infrastructure/ids.ts';
import { REPO_ROOT } from './children.ts';
import { sampleRss } from './rss.ts';

/** How much data the service is grown with. */
export type GrownSize = { accounts: number; votes: number; favourites: number; images: number };

/** A pre-loaded account: its key and the images it owns (votes and favourites point at them). */
export type GrownAccount = { account_id: string; api_key: string; image_ids: string[] };

export type GrownData = { accounts: GrownAccount[]; events: number; importS: number; importPeakRssMiB: number | null };

/**
 * The full size (1,000 accounts, 1,000,000 votes, 100,000 favourites, 100,000 images), scaled by
 * BENCH_GROWN_SCALE (0.02: 20 accounts, 20,000 votes, 2,000 favourites and 2,000 images) and
 * overridden one by one by BENCH_GROWN_ACCOUNTS, _VOTES, _FAVOURITES and _IMAGES.
 */
export const grownSize = (env: NodeJS.ProcessEnv = process.env): GrownSize => {
  const scale = Number(env.BENCH_GROWN_SCALE ?? 1);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error('BENCH_GROWN_SCALE must be a positive number');
  const count = (name: string, full: number, least: number) => {
    const value = env[name] === undefined ? Math.round(full * scale) : Number(env[name]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
    return Math.max(least, value);
  };
  const accounts = count('BENCH_GROWN_ACCOUNTS', 1_000, 2);
  return {
    accounts,
    votes: count('BENCH_GROWN_VOTES', 1_000_000, 0),
    favourites: count('BENCH_GROWN_FAVOURITES', 100_000, 0),
    // Every account owns at least one image (the mix reads one of its own by id).
    images: count('BENCH_GROWN_IMAGES', 100_000, accounts),
  };
};

/** Numeric ids (votes, favourites) from the past: the service's own ids are drawn from the clock and cannot meet them. */
const PAST_ID_BASE = (Date.UTC(2025, 0, 1) - Date.UTC(2024, 0, 1)) * 4096;

/**
 * The events of the grown data as export lines (infrastructure/event-store/ndjson.ts), in log
 * order: the accounts (opened by the real handler on a scratch store, so their keys hash and
 * authenticate as the admin API's do), then per image its upload, validation and labels (as the
 * pipeline leaves a clean image: the processors skip it), per favourite its claim and the
 * favourite, and the votes — all made by the domain's deciders, spread round-robin over the
 * accounts, votes and favourites on the account's own images. Pre-loaded images are events only:
 * their bytes are not stored (the mix reads their JSON, never their files), which also keeps the
 * image processors from doing anything with them but a stream read.
 */
export async function* grownEventLines(size: GrownSize, accounts: GrownAccount[], accountLines: EventLine[]): AsyncGenerator<string> {
  let position = 0n;
  const line = (stream: string, revision: number, event: Event, accountId: string, timestamp: string): string => {
    position += 1n;
    const metadata: EventMetadata = { account_id: accountId, correlation_id: null, causation_id: null, request_id: null, actor: 'bench:grown-data', timestamp, schema_version: 1 };
    const recorded: EventLine = { position: position.toString(), stream, revision: String(revision), id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata };
    return `${JSON.stringify(recorded)}\n`;
  };
  for (const account of accountLines) {
    position += 1n;
    yield `${JSON.stringify({ ...account, position: position.toString() })}\n`;
  }
  const start = Date.now() - 30 * 24 * 3600 * 1000;
  const at = (index: number, count: number) => new Date(start + Math.floor((index / Math.max(1, count)) * 29 * 24 * 3600 * 1000)).toISOString();
  const ownerOf = (index: number) => accounts[index % accounts.length];

  for (let i = 0; i < size.images; i++) {
    const owner = ownerOf(i);
    const imageId = owner.image_ids[Math.floor(i / accounts.length)];
    const now = at(i, size.images);
    const commands: Parameters<typeof imageDecider.decide>[0][] = [
      {
        type: 'UploadImage' as const,
        data: {
          image_id: imageId,
          account_id: owner.account_id,
          sub_id: null,
          original_filename: `${imageId}.jpg`,
          mime_type: 'image/jpeg',
          format: 'jpg' as const,
          width: 640,
          height: 480,
          bytes: 48_000,
          age_months: null,
          breed_ids: [],
          url_token: newEventId().replace(/-/g, ''),
          blob_keys: blobKeysFor(imageId),
          auto_crop: false,
          parent_image_id: null,
          crop_box: null,
          created_at: now,
        },
      },
      {
        type: 'RecordValidation' as const,
        data: { image_id: imageId, account_id: owner.account_id, verdict: 'clean' as const, unsafe_reasons: [], moderation_labels: [], scores: {}, threshold: 0.7, model: 'bench', validated_at: now },
      },
      {
        type: 'RecordLabels' as const,
        data: {
          image_id: imageId,
          account_id: owner.account_id,
          labels: [{ Name: 'Cat', Confidence: 97, Instances: [], Parents: [{ Name: 'Animal' }] }],
          species_id: '1',
          suggested_breed_ids: [],
          tags: ['cat', 'landscape'],
          colour_ids: [],
          colour_codes: [],
          orientation: 'landscape' as const,
          child_image_ids: [],
          vendor: 'bench',
          labelled_at: now,
        },
      },
    ];
    let state = imageDecider.initialState();
    let revision = 0;
    for (const command of commands) {
      for (const event of imageDecider.decide(command, state) as ImageEvent[]) {
        yield line(imageStream(imageId), revision++, event, owner.account_id, now);
        state = imageDecider.evolve(state, event);
      }
    }
  }

  for (let i = 0; i < size.favourites; i++) {
    const owner = ownerOf(i);
    const favouriteId = PAST_ID_BASE + i;
    // The account's k-th favourite: each of its images once per sub_id (one favourite per account + sub_id + image).
    const k = Math.floor(i / accounts.length);
    const imageId = owner.image_ids[k % owner.image_ids.length];
    const subId = `grown-${Math.floor(k / owner.image_ids.length)}`;
    const now = at(i, size.favourites);
    const claim = { type: 'ClaimFavourite' as const, favourite_id: favouriteId, account_id: owner.account_id, sub_id: subId, image_id: imageId, holder: { status: 'none' as const }, now };
    for (const event of favouriteClaimDecider.decide(claim, favouriteClaimDecider.initialState())) {
      yield line(favouriteClaimStream(claimKey(owner.account_id, subId, imageId)), 0, event, owner.account_id, now);
    }
    const add = { type: 'AddFavourite' as const, favourite_id: favouriteId, account_id: owner.account_id, image_id: imageId, sub_id: subId, country_code: null, client_ip_address: null, now };
    for (const event of favouriteDecider.decide(add, favouriteDecider.initialState())) yield line(favouriteStream(favouriteId), 0, event, owner.account_id, now);
  }

  for (let i = 0; i < size.votes; i++) {
    const owner = ownerOf(i);
    const voteId = PAST_ID_BASE + i;
    const now = at(i, size.votes);
    const cast = {
      type: 'CastVote' as const,
      vote_id: voteId,
      account_id: owner.account_id,
      image_id: owner.image_ids[Math.floor(i / accounts.length) % owner.image_ids.length],
      sub_id: `grown-${i % 10}`,
      value: i % 3 === 0 ? -1 : 1,
      country_code: null,
      ip_address: null,
      now,
    };
    for (const event of voteDecider.decide(cast, voteDecider.initialState())) yield line(voteStream(voteId), 0, event, owner.account_id, now);
  }
}

/** The accounts, opened by the real handler on a scratch store, and their events as export lines. */
export const openGrownAccounts = async (size: GrownSize): Promise<{ accounts: GrownAccount[]; lines: EventLine[] }> => {
  const scratch = sqliteEventStore(':memory:');
  try {
    const accounts: GrownAccount[] = [];
    for (let i = 0; i < size.accounts; i++) {
      const opened = await openAccount(scratch, { name: `grown ${i}` }, { accountId: null, requestId: null, actor: 'bench:grown-data' });
      // Image n of the log belongs to account n % accounts (grownEventLines): this one's share.
      const owned = Math.floor(size.images / size.accounts) + (i < size.images % size.accounts ? 1 : 0);
      accounts.push({ account_id: opened.account_id, api_key: opened.api_key, image_ids: Array.from({ length: owned }, (_, n) => `g${i.toString(36)}x${n.toString(36)}`) });
    }
    const lines = (await scratch.readAll({ after: 0n, maxCount: 1_000_000 })).map(toEventLine);
    return { accounts, lines };
  } finally {
    await scratch.close();
  }
};

/**
 * Grows an EMPTY deployment (the service not running yet; `env` names its DATA_DIR and adapters):
 * the events are made here and streamed into `npm run import-events` (runtime/import-events-cli.ts)
 * in a process of its own, as an operator would import an export, through a named pipe (the full
 * size would be a file of ~600 MB). Starting the service afterwards projects them.
 */
export const growData = async (size: GrownSize, env: NodeJS.ProcessEnv, log: (message: string) => void): Promise<GrownData> => {
  const { accounts, lines } = await openGrownAccounts(size);
  const started = Date.now();
  const pipeDir = mkdtempSync(join(tmpdir(), 'bench-grown-pipe-'));
  const fifo = join(pipeDir, 'events.ndjson');
  execFileSync('mkfifo', [fifo]);
  const importer = spawn(process.execPath, ['--import', 'tsx', 'runtime/import-events-cli.ts', fifo], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    return await feed(importer, fifo, size, accounts, lines, started, log);
  } finally {
    if (importer.exitCode === null) importer.kill('SIGKILL');
    rmSync(pipeDir, { recursive: true, force: true });
  }
};

const feed = async (
  importer: ReturnType<typeof spawn>,
  fifo: string,
  size: GrownSize,
  accounts: GrownAccount[],
  lines: EventLine[],
  started: number,
  log: (message: string) => void,
): Promise<GrownData> => {
  const sink = createWriteStream(fifo);
  // A refused import closes the pipe: its exit code and message say why (below), not an EPIPE.
  sink.on('error', () => undefined);
  const rss = sampleRss(importer.pid as number, 250);
  let output = '';
  importer.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(importer, 'exit');
  let events = 0;
  let buffered: string[] = [];
  const write = async (text: string) => {
    if (!sink.write(text)) await Promise.race([once(sink, 'drain'), exited]);
  };
  for await (const text of grownEventLines(size, accounts, lines)) {
    buffered.push(text);
    events += 1;
    if (buffered.length >= 1_000) {
      await write(buffered.join(''));
      buffered = [];
    }
    if (events % 200_000 === 0) log(`  grown data: ${events.toLocaleString('en-US')} events written to the import`);
  }
  await write(buffered.join(''));
  await new Promise<void>((resolve) => sink.end(resolve));
  const [code] = (await exited) as [number | null];
  const importPeakRssMiB = rss.stop();
  if (code !== 0) throw new Error(`import-events exited with ${code}: ${output.trim()}`);
  return { accounts, events, importS: (Date.now() - started) / 1000, importPeakRssMiB };
};
