import type { Logger } from 'pino';
import type { EventStore, Subscription } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { unitOfWork } from '../infrastructure/read-store/unit-of-work.ts';
import type { Projection } from './projection.ts';
import { recentBatches } from './recent-batches.ts';

const applyBatch = async (projection: Projection, store: ReadStore, events: Parameters<Projection['apply']>[0][]) => {
  if (events.length === 0) return;
  await projection.prefetch?.(events, store);
  for (const event of events) await projection.apply(event, store);
};

const handles = (projection: Projection, streamName: string): boolean =>
  projection.streamPrefixes.some((prefix) => streamName.startsWith(prefix));

/** How often a runner between batches checks whether its store lost writes it must apply again. */
export const IDLE_REPAIR_CHECK_MS = 1_000;

/**
 * Runs the projections on one shared subscription (one read of the log for all of them), each
 * with its own checkpoint: the subscription starts at the lowest checkpoint and a projection skips
 * what it has already seen. After each batch a projection's checkpoint is stored — after its
 * writes, so a crash in between only replays writes the position guards ignore. A projection that
 * fails makes the batch retry; the ones that succeeded skip it then by their checkpoint.
 *
 * A batch's writes go through one unit of work shared by the projections: documents read back
 * within the batch come from memory, and every write leaves in one bulkWrite per collection when
 * the batch is done. The checkpoints are stored after that flush. When a projection fails, what
 * the batch wrote so far is flushed all the same (as single writes would have landed) and only the
 * projections that finished get their checkpoint; a failed flush stores no checkpoint at all.
 * A batch's checkpoints are written while the next batch is applied (one round trip less per batch
 * on a shared store); stop() waits for the last of them.
 *
 * A store that may have lost writes it acknowledged (ReadStore.rollbacks moved: SQLite rolled back,
 * a MongoDB server came back) is answered between batches: the runner reads the stored checkpoints
 * back and applies again the events since the older of them and the batches of the last seconds.
 */
export const startProjections = async (
  eventStore: EventStore,
  readStore: ReadStore,
  list: readonly Projection[],
  logger: Logger,
): Promise<{ stop: () => Promise<void> }> => {
  const checkpoints = new Map<string, bigint>();
  for (const projection of list) {
    await projection.setup?.(readStore);
    const after = (await readStore.getCheckpoint(projection.name)) ?? 0n;
    checkpoints.set(projection.name, after);
    logger.info({ projection: projection.name, from: after.toString() }, 'projection started');
  }
  if (list.length === 0) return { stop: async () => undefined };
  const from = [...checkpoints.values()].reduce((lowest, position) => (position < lowest ? position : lowest));
  /** The last batch's checkpoint write, under way while the next batch is applied. */
  let storing: Promise<void> = Promise.resolve();
  /**
   * After a failed batch (the read store out of reach, most often), the checkpoints the store holds
   * are read again before the next one: a store that lost writes it had acknowledged (a server
   * killed before its last writes reached the disk, a restore from a backup) holds an older
   * checkpoint than this process stored, and the events since are applied again from there —
   * otherwise the subscription, which goes on from where this process got to, would never bring
   * them back. The position guards make the documents that survived ignore the replay.
   */
  let storeFailed = false;
  /** The store's count of lost writes (ReadStore.rollbacks) when this runner last read its checkpoints. */
  let seenRollbacks = readStore.rollbacks ?? 0;
  const rolledBackSince = (seen: number) => (readStore.rollbacks ?? 0) !== seen;
  /**
   * The store reported a possible loss (ReadStore.rollbacks moved) that no completed read-back has
   * answered yet. Its checkpoints then prove nothing about the documents written just before them
   * (a server's connections can take a batch's writes in any order before it loses the last ones),
   * so the batches of the last few seconds are applied again too (recent-batches.ts).
   */
  let lossSuspected = false;
  const recent = recentBatches(from);
  const resumeFromStoredCheckpoints = async () => {
    await storing;
    if (rolledBackSince(seenRollbacks)) lossSuspected = true;
    seenRollbacks = readStore.rollbacks ?? 0;
    const rewind = lossSuspected ? recent.rewindPoint() : null;
    if (rewind !== null) {
      logger.warn(
        { after: rewind.toString() },
        'the read store may have lost writes it acknowledged (its server came back, or it rolled back); applying again the events of the last batches and any its checkpoints lack',
      );
    }
    for (const projection of list) {
      const known = checkpoints.get(projection.name) ?? 0n;
      const stored = (await readStore.getCheckpoint(projection.name)) ?? 0n;
      const after = rewind !== null && rewind < stored ? rewind : stored;
      if (after >= known) continue;
      if (stored < known) {
        logger.warn(
          { projection: projection.name, stored: stored.toString(), known: known.toString() },
          'the read store holds an older checkpoint than was stored (writes it acknowledged are gone); applying the events since again',
        );
      }
      await projectToHead(eventStore, readStore, projection, { after, until: known });
      await readStore.setCheckpoint(projection.name, known);
    }
    lossSuspected = false;
  };
  const handleBatch = async (events: Parameters<Projection['apply']>[0][], lastPosition: bigint) => {
    const applied: Projection[] = [];
    let failure: unknown;
    const work = unitOfWork(readStore);
    for (const projection of list) {
      const checkpoint = checkpoints.get(projection.name) ?? 0n;
      if (lastPosition <= checkpoint) continue;
      try {
        await applyBatch(
          projection,
          work.store,
          events.filter((event) => event.position > checkpoint && handles(projection, event.streamName)),
        );
        applied.push(projection);
      } catch (error) {
        logger.error({ err: error, projection: projection.name }, 'projection failed; retrying the batch');
        failure = error;
        break;
      }
    }
    await work.flush();
    // Writes lost under the batch (SQLite rolled its transaction back): none of its checkpoints is
    // stored over the loss; the batch is tried again after the checkpoints are read again.
    if (rolledBackSince(seenRollbacks)) throw failure ?? new Error('the read store lost writes during the batch; it is applied again');
    // Checkpoints after the writes, stored together (both stores write them in one go). The next
    // batch need not wait for them: its writes come after these ones anyway, and its checkpoints
    // after its writes. A checkpoint write that fails only leaves the stored one lower (a crash
    // replays more; the position guards ignore it); the next batch reads the stored ones again.
    const stored = Promise.all(applied.map((projection) => readStore.setCheckpoint(projection.name, lastPosition)));
    for (const projection of applied) checkpoints.set(projection.name, lastPosition);
    if (failure !== undefined) {
      await stored.catch(() => undefined);
      throw failure;
    }
    recent.stored(lastPosition);
    storing = stored.then(
      () => undefined,
      (error: unknown) => {
        storeFailed = true;
        logger.error({ err: error }, 'projection checkpoints not stored; the next batch reads the stored ones again');
      },
    );
  };
  const repairIfNeeded = async () => {
    while (storeFailed || rolledBackSince(seenRollbacks)) {
      storeFailed = false;
      await resumeFromStoredCheckpoints();
    }
  };
  /** Batches and repairs between them run one at a time. */
  let turn: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = turn.then(task, task);
    turn = run.catch(() => undefined);
    return run;
  };
  const subscription: Subscription = eventStore.subscribe({
    after: from,
    filter: { streamPrefixes: [...new Set(list.flatMap((projection) => projection.streamPrefixes))] },
    onEvents: (events, lastPosition) =>
      exclusive(async () => {
        try {
          await repairIfNeeded();
          await handleBatch(events, lastPosition);
        } catch (error) {
          storeFailed = true;
          throw error;
        }
      }),
    // A batch whose writes or checkpoint read-back failed (the store out of reach) is retried with back-off.
    onError: (error) => logger.warn({ err: error }, 'projection batch not done; retrying it'),
  });
  // A store that lost writes while no event came (its server restarted between two batches) is
  // repaired without waiting for the next event: checked between batches, one repair at a time.
  let idleRepairQueued = false;
  const idleRepair = setInterval(() => {
    if (idleRepairQueued || (!storeFailed && !rolledBackSince(seenRollbacks))) return;
    idleRepairQueued = true;
    exclusive(repairIfNeeded)
      .catch((error: unknown) => {
        storeFailed = true;
        logger.warn({ err: error }, 'reading back the stored checkpoints failed; tried again in a moment');
      })
      .finally(() => {
        idleRepairQueued = false;
      });
  }, IDLE_REPAIR_CHECK_MS);
  idleRepair.unref();
  return {
    stop: async () => {
      clearInterval(idleRepair);
      await subscription.stop();
      await turn;
      await storing;
    },
  };
};

/**
 * Applies every event from `after` up to the head of the log as it is now (rebuilds, tests).
 * Calls `onProgress` with the position reached and the head it is heading for.
 */
export const projectToHead = async (
  eventStore: EventStore,
  readStore: ReadStore,
  projection: Projection,
  options: { after?: bigint; batchSize?: number; onProgress?: (position: bigint, head: bigint) => void; until?: bigint } = {},
): Promise<bigint> => {
  await projection.setup?.(readStore);
  // `until`: stop at this position (inclusive) instead of the head (verified replays).
  const head = options.until ?? (await eventStore.headPosition());
  let position = options.after ?? 0n;
  while (position < head) {
    const batch = (await eventStore.readAll({ after: position, maxCount: options.batchSize ?? 1000 })).filter((event) => event.position <= head);
    if (batch.length === 0) break;
    const work = unitOfWork(readStore);
    await applyBatch(
      projection,
      work.store,
      batch.filter((event) => handles(projection, event.streamName)),
    );
    await work.flush();
    position = batch[batch.length - 1].position;
    await readStore.setCheckpoint(projection.name, position);
    options.onProgress?.(position, head);
  }
  return position;
};
