import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WritePositions } from './write-positions.ts';

/** The contract every write-positions adapter must pass; the factory gives a fresh one. */
export const writePositionsContract = (adapterName: string, make: () => Promise<WritePositions & { close?: () => Promise<void> }>): void => {
  describe(`write positions contract: ${adapterName}`, () => {
    let positions: WritePositions & { close?: () => Promise<void> };
    let account: string;
    beforeEach(async () => {
      positions = await make();
      account = `acc_${randomUUID().slice(0, 8)}`;
    });
    afterEach(async () => {
      await positions.close?.();
    });

    it('answers a leased write once leased lookups made before it have run out, and they show it after', async () => {
      expect(await positions.leasedPositions(account)).toEqual({ lastWrite: null, lastAccountChange: null });
      let started = performance.now();
      await positions.recordAccountChange(account, 5n);
      expect(performance.now() - started).toBeGreaterThanOrEqual(positions.leaseMs);
      expect((await positions.leasedPositions(account)).lastAccountChange).toBe(5n);
      started = performance.now();
      await positions.record(account, 6n, 'public-images');
      expect(performance.now() - started).toBeGreaterThanOrEqual(positions.leaseMs);
      expect((await positions.leasedPositions(account)).byKind).toEqual({ 'public-images': 6n });
    });

    it('shows any write to a fresh lookup at once, whatever a leased one still holds', async () => {
      await positions.leasedPositions(account);
      await positions.record(account, 4n, 'votes');
      expect(await positions.positions(account)).toEqual({ lastWrite: 4n, lastAccountChange: null, byKind: { votes: 4n } });
    });

    it('knows nothing of an account that never wrote', async () => {
      expect(await positions.positions(account)).toEqual({ lastWrite: null, lastAccountChange: null });
      expect(await positions.lastWrite(account)).toBeNull();
    });

    it('keeps the highest write and never moves it backwards', async () => {
      await positions.record(account, 5n);
      await positions.record(account, 3n);
      expect(await positions.positions(account)).toEqual({ lastWrite: 5n, lastAccountChange: null });
      await positions.record(account, 9_007_199_254_740_993n);
      expect(await positions.lastWrite(account)).toBe(9_007_199_254_740_993n);
    });

    it('keeps the highest write of each kind beside the last write of any kind', async () => {
      await positions.record(account, 5n, 'votes');
      await positions.record(account, 3n, 'images');
      await positions.record(account, 4n, 'votes');
      await positions.record(account, 6n);
      expect(await positions.positions(account)).toEqual({ lastWrite: 6n, lastAccountChange: null, byKind: { votes: 5n, images: 3n } });
      await positions.recordAccountChange(account, 8n);
      expect(await positions.positions(account)).toEqual({ lastWrite: 8n, lastAccountChange: 8n, byKind: { votes: 5n, images: 3n } });
    });

    it('counts an account change as a write too, and a later write does not move the change', async () => {
      await positions.record(account, 2n);
      await positions.recordAccountChange(account, 4n);
      expect(await positions.positions(account)).toEqual({ lastWrite: 4n, lastAccountChange: 4n });
      await positions.record(account, 7n);
      await positions.recordAccountChange(account, 3n);
      expect(await positions.positions(account)).toEqual({ lastWrite: 7n, lastAccountChange: 4n });
    });

    it('keeps accounts apart and takes concurrent first writes of one account', async () => {
      const other = `${account}_b`;
      await Promise.all([1n, 2n, 3n, 4n].map((position) => positions.recordAccountChange(other, position)));
      // Racing writes of one kind may keep a lower one on FerretDB (its $max is read-modify-write).
      expect((await positions.positions(other)).lastAccountChange).not.toBeNull();
      await positions.recordAccountChange(other, 5n);
      expect(await positions.positions(other)).toEqual({ lastWrite: 5n, lastAccountChange: 5n });
      expect(await positions.positions(account)).toEqual({ lastWrite: null, lastAccountChange: null });
    });

    it('records and looks up many accounts at once, each at its own highest positions', async () => {
      const ids = Array.from({ length: 30 }, (_, i) => `${account}_${i}`);
      await Promise.all(
        ids.flatMap((id, i) => [
          positions.record(id, BigInt(100 + i), 'votes'),
          positions.record(id, BigInt(50 + i), 'images'),
          positions.record(id, BigInt(10 + i)),
          ...(i % 3 === 0 ? [positions.recordAccountChange(id, BigInt(20 + i))] : []),
        ]),
      );
      const found = await Promise.all(ids.map((id) => positions.positions(id)));
      found.forEach((at, i) =>
        expect(at).toEqual({
          lastWrite: BigInt(100 + i),
          lastAccountChange: i % 3 === 0 ? BigInt(20 + i) : null,
          byKind: { votes: BigInt(100 + i), images: BigInt(50 + i) },
        }),
      );
    });

    it('does not lose an account change to a write recorded at the same moment', async () => {
      // Twenty accounts side by side (an account change waits out the lease, write-positions.ts).
      const rounds = Array.from({ length: 20 }, (_, round) => `${account}_${round}`);
      await Promise.all(
        rounds.map(async (id) => {
          await Promise.all([positions.record(id, 11n), positions.recordAccountChange(id, 10n), positions.record(id, 12n)]);
          expect((await positions.positions(id)).lastAccountChange).toBe(10n);
        }),
      );
    });
  });
};
