import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { CommandContext } from '../infrastructure/event-store/command-handler.ts';
import type { SecretBox } from '../infrastructure/secrets/secret-box.ts';
import type { Resolve } from '../infrastructure/webhooks/target-policy.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import type { Adapters } from '../infrastructure/adapters.ts';
import type { Config } from '../infrastructure/config.ts';
import { imageSettingsOf } from '../http/image-settings.ts';
import { unavailableError } from '../http/unavailable.ts';
import { retryLater } from '../infrastructure/consistency/retry-later.ts';
import { mongoUnreachable } from '../infrastructure/mongo-reachability.ts';
import { createLogger } from '../infrastructure/logger.ts';
import type { Logger } from 'pino';
import { uploadBudget, type UploadBudget } from '../http/upload-budget.ts';

/** What the image upload routes need: where bytes go, the default monthly quota, how long upload-sync waits. */
export type ImageCommandSettings = {
  blobs: BlobStore;
  /** Monthly uploads per account unless an admin set the account's own. */
  uploadQuota: number;
  /** upload-sync answers 503 analysis_unavailable after this long. */
  syncTimeoutMs: number;
  /** PUBLIC_BASE_URL, else each request's origin. */
  publicBaseUrl?: string;
};
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { WriteKind } from '../contracts/write-kinds.ts';
import type { ImageState } from '../domain/images/image.ts';

/** What the webhook routes need: the key that encrypts signing secrets and the URL policy. */
export type WebhookCommandSettings = { secrets: SecretBox; allowPrivateTargets: boolean; resolve?: Resolve };

export type CommandApiDeps = {
  eventStore: EventStore;
  writePositions: WritePositions;
  /** Without it the webhook write routes answer 503 not_ready (a process that was not given the secrets key). */
  webhooks?: WebhookCommandSettings;
  /** Without it the image upload routes answer 503 not_ready. */
  images?: ImageCommandSettings;
  /** Stored media (pet photos and videos). Without it the upload routes answer 503 not_ready. */
  blobs?: BlobStore;
  /** Where uploads are streamed before they are checked (default: the OS temp dir). */
  uploadTempDir?: string;
  /**
   * The memory this process lets uploads being checked take at once (UPLOAD_MEMORY_BUDGET_MB,
   * http/upload-budget.ts), shared by image uploads and pet photos.
   */
  uploadMemory: UploadBudget;
  /**
   * The memory decoding image uploads may take at once, by what their headers say it costs
   * (infrastructure/images/decode-cost.ts): as much again as UPLOAD_MEMORY_BUDGET_MB, apart from
   * the bodies' shares so that an upload holding its body's share never waits on another's.
   * Absent: decoding is not bounded (tests).
   */
  decodeMemory?: UploadBudget;
  /**
   * The read models, for one thing only: an operation that issues an API key answers once the
   * accounts projection has the key, so the key works on the next request from any process while
   * authentication answers unknown keys from the key read model alone (http/auth-cache.ts).
   */
  readStore?: ReadStore;
  /** Where a write position that could not be recorded (MongoDB out of reach) is reported. */
  logger?: Logger;
};

/** The command routes' dependencies as every process that serves them takes them from its configuration and adapters. */
export const commandApiDepsOf = (config: Config, adapters: Adapters, eventStore: EventStore): CommandApiDeps => ({
  eventStore,
  writePositions: adapters.writePositions,
  webhooks: { secrets: adapters.secrets, allowPrivateTargets: config.webhookAllowPrivateTargets },
  images: imageSettingsOf(config, adapters.blobs),
  blobs: adapters.blobs,
  uploadTempDir: join(config.dataDir, 'uploads-tmp'),
  uploadMemory: uploadBudget(config.uploadMemoryBudgetMb * 1024 * 1024),
  decodeMemory: uploadBudget(config.uploadMemoryBudgetMb * 1024 * 1024),
  readStore: adapters.readStore,
  logger: createLogger('command-api', config.logLevel),
});

/** How long a key-issuing operation waits for the accounts projection before answering anyway. */
const KEY_VISIBLE_WAIT_MS = 5_000;

/** Waits (bounded) until the accounts projection has passed `position` (a key just issued). */
export const untilKeyUsable = async (deps: CommandApiDeps, position: bigint | null): Promise<void> => {
  if (position === null || !deps.readStore) return;
  try {
    await deps.readStore.waitForCheckpoints(['accounts'], position, KEY_VISIBLE_WAIT_MS);
  } catch (error) {
    // The key is issued (the event is stored); the read side being out of reach only delays its first use.
    if (!unavailableError(error)) throw error;
  }
};

/**
 * A write position recorded after the write itself is stored: if the shared positions (MongoDB)
 * are out of reach, the write is still acknowledged — answering an error for a write that was
 * applied would invite a client to apply it twice — and the record is tried again in the
 * background until the store is back, when read-your-writes holds again for the account.
 */
const recordAfterWrite = async (deps: CommandApiDeps, what: string, record: () => Promise<void>): Promise<void> => {
  const inBackground = (error: unknown) => {
    deps.logger?.warn({ err: error, what }, 'write position not recorded (store out of reach); the write stands, retrying in the background');
    retryLater(record, { onGiveUp: (last) => deps.logger?.error({ err: last, what }, 'write position still not recorded; giving up') });
  };
  // Already known lost: the answer does not wait out server selection first.
  if (mongoUnreachable()) return inBackground('the database has been out of reach since before this write');
  try {
    await record();
  } catch (error) {
    if (!unavailableError(error)) throw error;
    inBackground(error);
  }
};

/** The metadata context of a request: account, request id, and the key (or admin) acting. */
export const contextOf = (request: FastifyRequest): CommandContext => ({
  accountId: request.account?.id ?? null,
  requestId: request.id,
  actor: request.isAdmin ? 'admin' : request.account ? `key:${request.account.keyId}` : null,
});

/**
 * Remembers the account's last write so its next read waits for the projections; `kind` says what
 * it changed (contracts/write-kinds.ts): a read that depends on other kinds only does not wait for it.
 */
export const recordWrite = async (deps: CommandApiDeps, accountId: string | null, position: bigint | null, kind: WriteKind): Promise<void> => {
  if (accountId && position !== null) await recordAfterWrite(deps, `write ${kind}`, () => deps.writePositions.record(accountId, position, kind));
};

/**
 * Remembers an image write (`images`) of the image's owner; one on an image everybody sees once it
 * is written (its tags, its deletion, the decision that made it public) is a `public-images` write
 * too, which breeds and legislation wait for (contracts/write-kinds.ts). Such a write is leased:
 * it is answered once no process may still answer from positions looked up before it.
 */
export const recordImageWrite = async (deps: CommandApiDeps, accountId: string | null, position: bigint | null, image: ImageState): Promise<void> => {
  const visibleToAll = image.exists && image.isPublic;
  await Promise.all([recordWrite(deps, accountId, position, 'images'), visibleToAll ? recordWrite(deps, accountId, position, 'public-images') : undefined]);
};

/**
 * Remembers a change to the account itself (an event on its own stream: keys, deactivation,
 * features, capabilities, plan): authentication then re-reads the account on its next request,
 * in every process sharing the write positions. It counts as a write too.
 */
export const recordAccountChange = async (deps: CommandApiDeps, accountId: string, position: bigint | null): Promise<void> => {
  if (position !== null) await recordAfterWrite(deps, 'account change', () => deps.writePositions.recordAccountChange(accountId, position));
};
