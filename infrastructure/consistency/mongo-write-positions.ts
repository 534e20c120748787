import { setTimeout as delay } from 'node:timers/promises';
import { Long, MongoBulkWriteError, type AnyBulkWriteOperation } from 'mongodb';
import { mongoClient } from '../mongo-client.ts';
import { coalescedRaises, freshReads } from '../coalesce.ts';
import { idBatcher } from '../read-store/id-batcher.ts';
import { LRUCache } from 'lru-cache';
import { onlyLeasedKinds, type WriteKind } from '../../contracts/write-kinds.ts';
import { LEASE_MARGIN_MS, POSITIONS_LEASE_MS, type AccountPositions, type WritePositions } from './write-positions.ts';

type PositionsDoc = { _id: string; position?: Long; account_change?: Long; kinds?: Record<string, Long> };

const isDuplicateKey = (error: unknown): boolean => (error as { code?: number } | null)?.code === 11000;

const toBigInt = (value: Long | undefined): bigint | null => (value === undefined || value === null ? null : BigInt(value.toString()));

/** How often an account change is written again when a concurrent write wrote back an older document. */
const ACCOUNT_CHANGE_ATTEMPTS = 5;
const VERIFY_AGAIN_MS = 20;

/** Accounts whose last lookup this process keeps for leased reads (least recently used go first). */
const LEASED_ACCOUNTS = 10_000;

/**
 * Write positions shared by separate command-api and query-api processes (and their replicas):
 * one document per account, found by _id in one lookup, holding the highest position of any
 * write (`position`), of a change to the account itself (`account_change`) and of each kind of
 * write (`kinds.<kind>`), all by $max so replicas never move them backwards.
 *
 * One document, not two: FerretDB (SQLite backend) scans the collection for an _id it does not
 * find and for $in, so a second document per account would cost more than it saves. FerretDB also
 * applies an update as read-modify-write of the whole document, so a vote recorded at the same
 * moment as a deactivation could write back the document without the deactivation's position: on
 * FerretDB an account change therefore reads its position back and writes it again until it holds
 * (rare operations: a few lookups and a pause each). MongoDB applies $max atomically: one update.
 *
 * Every write and every read of the service goes through here, so a busy account's records and
 * lookups are coalesced (see coalesce.ts): the records arriving while one is on its way go as one
 * update of the highest position, the lookups arriving while one is on its way share the next one.
 * On MongoDB the records and the lookups of different accounts made in one turn of the event loop
 * also leave together: one bulk write, one `$in` find.
 *
 * The lease (write-positions.ts): each lookup is kept per account with the moment it started, and
 * answers `leasedPositions` for POSITIONS_LEASE_MS from then; a leased write (an account change, a
 * kind of LEASED_KINDS) resolves POSITIONS_LEASE_MS + LEASE_MARGIN_MS after its update is done.
 */
export const mongoWritePositions = async (url: string, dbName?: string): Promise<WritePositions & { close: () => Promise<void> }> => {
  const client = mongoClient(url);
  await client.connect();
  const documents = client.db(dbName ?? (new URL(url).pathname.slice(1) || 'animal_data')).collection<PositionsDoc>('_write_positions');
  // MongoDB applies $max atomically; FerretDB (which names itself in buildInfo) does not.
  const atomicUpdates = !(await client.db('admin').command({ buildInfo: 1 })).ferretdbVersion;

  /** $max by upsert; two first writes racing may collide on _id: the loser retries as an update. */
  const raiseOne = async (accountId: string, fields: Record<string, Long>): Promise<void> => {
    const write = () => documents.updateOne({ _id: accountId }, { $max: fields }, { upsert: true });
    try {
      await write();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await write();
    }
  };

  /**
   * MongoDB: the raises of every account asked for in one turn of the event loop leave as ONE
   * unordered bulk write of $max upserts (fields of one account merged, each at its highest);
   * writes that collided on a first insert go again as updates. Each caller's promise settles
   * with the bulk write that carried its raise. FerretDB (non-atomic $max) keeps one update each.
   */
  let turn: { raises: Map<string, Record<string, Long>>; settle: ((error?: unknown) => void)[] } | null = null;
  const writeTurn = async (batch: NonNullable<typeof turn>) => {
    const upserts = (ids: string[]): AnyBulkWriteOperation<PositionsDoc>[] =>
      ids.map((id) => ({ updateOne: { filter: { _id: id }, update: { $max: batch.raises.get(id) as Record<string, Long> }, upsert: true } }));
    try {
      try {
        await documents.bulkWrite(upserts([...batch.raises.keys()]), { ordered: false });
      } catch (error) {
        const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
        if (writeErrors.length === 0 || !writeErrors.every(isDuplicateKey)) throw error;
        const ids = [...batch.raises.keys()];
        await documents.bulkWrite(upserts(writeErrors.map((writeError) => ids[writeError.index])), { ordered: false });
      }
    } catch (error) {
      for (const settle of batch.settle) settle(error);
      return;
    }
    for (const settle of batch.settle) settle();
  };
  const raiseInTurn = (accountId: string, fields: Record<string, Long>): Promise<void> => {
    if (!turn) {
      const batch = (turn = { raises: new Map(), settle: [] });
      setImmediate(() => {
        turn = null;
        void writeTurn(batch);
      });
    }
    const merged = { ...turn.raises.get(accountId) };
    for (const [field, value] of Object.entries(fields)) if (!merged[field] || merged[field].lessThan(value)) merged[field] = value;
    turn.raises.set(accountId, merged);
    const settles = turn.settle;
    return new Promise<void>((resolve, reject) => settles.push((error) => (error === undefined ? resolve() : reject(error))));
  };
  /**
   * FerretDB: one update at a time per account from this process, since two at once (a vote's and
   * an upload's, say) each read the document and the last to write it back drops the other's field.
   */
  const inFlight = new Map<string, Promise<void>>();
  const raiseInOrder = (accountId: string, fields: Record<string, Long>): Promise<void> => {
    const next = (inFlight.get(accountId) ?? Promise.resolve()).catch(() => undefined).then(() => raiseOne(accountId, fields));
    inFlight.set(accountId, next);
    const forget = () => {
      if (inFlight.get(accountId) === next) inFlight.delete(accountId);
    };
    next.then(forget, forget);
    return next;
  };
  const raise = (accountId: string, fields: Record<string, Long>): Promise<void> => (atomicUpdates ? raiseInTurn(accountId, fields) : raiseInOrder(accountId, fields));

  /** MongoDB: the lookups of every account asked for in one turn as one `$in` find (see id-batcher.ts); FerretDB scans for `$in`: one find each. */
  const lookUpTogether = idBatcher(async (ids) => new Map((await documents.find({ _id: { $in: ids } }).toArray()).map((doc) => [doc._id, doc])));
  const lookUp = async (accountId: string): Promise<PositionsDoc | null> =>
    atomicUpdates ? ((await lookUpTogether([accountId])).get(accountId) ?? null) : documents.findOne({ _id: accountId });

  /** Each account's latest lookup and when it started (performance.now()): what leased reads answer from. */
  const lookedUp = new LRUCache<string, { startedAt: number; positions: AccountPositions }>({ max: LEASED_ACCOUNTS });
  const positions = freshReads(async (accountId: string): Promise<AccountPositions> => {
    const startedAt = performance.now();
    const doc = await lookUp(accountId);
    const kinds = Object.entries(doc?.kinds ?? {});
    const found: AccountPositions = {
      lastWrite: toBigInt(doc?.position),
      lastAccountChange: toBigInt(doc?.account_change),
      ...(kinds.length > 0 ? { byKind: Object.fromEntries(kinds.map(([kind, at]) => [kind, BigInt(at.toString())])) } : {}),
    };
    if ((lookedUp.get(accountId)?.startedAt ?? -Infinity) < startedAt) lookedUp.set(accountId, { startedAt, positions: found });
    return found;
  });
  const leasedPositions = async (accountId: string): Promise<AccountPositions> => {
    const last = lookedUp.get(accountId);
    return last && performance.now() - last.startedAt < POSITIONS_LEASE_MS ? last.positions : positions(accountId);
  };
  /** A leased write is answered once every lookup that may have missed it has run out of lease. */
  const leaseRunOut = () => delay(POSITIONS_LEASE_MS + LEASE_MARGIN_MS);

  const recordAny = coalescedRaises((accountId: string, position: bigint) => raise(accountId, { position: Long.fromBigInt(position) }));
  /** Coalesced per account and kind (the key joins them): one update raises both. */
  const recordKind = coalescedRaises((key: string, position: bigint) => {
    const [accountId, kind] = key.split('\u0000');
    const at = Long.fromBigInt(position);
    return raise(accountId, { position: at, [`kinds.${kind}`]: at });
  });

  const recordAccountChange = async (accountId: string, position: bigint): Promise<void> => {
    const at = Long.fromBigInt(position);
    if (atomicUpdates) return raise(accountId, { position: at, account_change: at });
    const holds = async () => ((await positions(accountId)).lastAccountChange ?? -1n) >= position;
    for (let attempt = 0; attempt < ACCOUNT_CHANGE_ATTEMPTS; attempt++) {
      await raise(accountId, { position: at, account_change: at });
      // Checked twice: a concurrent write that read the document before this one may land a moment later.
      if ((await holds()) && (await delay(VERIFY_AGAIN_MS).then(holds))) return;
    }
  };

  return {
    async record(accountId, position, kind) {
      if (kind === undefined) return recordAny(accountId, position);
      await recordKind(`${accountId}\u0000${kind}`, position);
      if (onlyLeasedKinds([kind as WriteKind])) await leaseRunOut();
    },
    async recordAccountChange(accountId, position) {
      await recordAccountChange(accountId, position);
      await leaseRunOut();
    },
    positions,
    leasedPositions,
    leaseMs: POSITIONS_LEASE_MS,
    async lastWrite(accountId) {
      return (await positions(accountId)).lastWrite;
    },
    close: () => client.close(),
  };
};
