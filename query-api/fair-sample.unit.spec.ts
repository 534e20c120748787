import { createCipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bucketsFor, drawFairly, poissonTail, type Member } from './fair-sample.ts';

/**
 * The fair random draw (fair-sample.ts), held to statistics with fixed seeds: the counts of many
 * draws over a known set must pass a chi-square test of uniformity (at p = 0.001, so a fair draw
 * fails by bad luck once in a thousand seeds: the seeds here are fixed, the outcome repeatable),
 * and the naive "first key after a random point" draw is shown to fail the same test, so the test
 * can tell. Bounded: 500 members, 30,000 draws.
 */
/** Uniform [0, 1) numbers from a seed: the AES-128-CTR keystream of the seed's hash, 32 bits a number. */
const seeded = (seed: string) => {
  const cipher = createCipheriv('aes-128-ctr', createHash('sha256').update(seed).digest().subarray(0, 16), Buffer.alloc(16));
  const zeros = Buffer.alloc(64 * 1024);
  let block = Buffer.alloc(0);
  let at = 0;
  return () => {
    if (at + 4 > block.length) {
      block = cipher.update(zeros);
      at = 0;
    }
    const value = block.readUInt32BE(at) / 2 ** 32;
    at += 4;
    return value;
  };
};

type Keyed = { id: string; key: number; copies?: number };

/** A set of members with uniform random keys, sorted by key, and a bucket reader over it that counts what it reads. */
const population = (size: number, seed: string) => {
  const random = seeded(seed);
  const members: Keyed[] = Array.from({ length: size }, (_, i) => ({ id: `m${i}`, key: random() })).sort((a, b) => a.key - b.key);
  return members;
};
const readerOf = (members: Keyed[]) => {
  const stats = { reads: 0, membersRead: 0, largestAsked: 0 };
  const lowerBound = (value: number) => {
    let low = 0;
    let high = members.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (members[mid].key < value) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const readBucket = async (low: number, high: number, max: number): Promise<Member[]> => {
    stats.reads += 1;
    stats.largestAsked = Math.max(stats.largestAsked, max);
    const found: Member[] = [];
    for (let i = lowerBound(low); i < members.length && members[i].key < high && found.length < max; i++) found.push({ id: members[i].id, copies: members[i].copies });
    stats.membersRead += found.length;
    return found;
  };
  return { readBucket, stats };
};

/** Chi-square statistic of counts against a uniform expectation, and its critical value at p = 0.001 (Wilson–Hilferty). */
const chiSquare = (counts: Map<string, number>, cells: number, draws: number) => {
  const expected = draws / cells;
  let statistic = 0;
  for (let i = 0; i < cells; i++) statistic += ((counts.get(`m${i}`) ?? 0) - expected) ** 2 / expected;
  const df = cells - 1;
  const z = 3.0902;
  const critical = df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
  return { statistic, critical };
};

const SIZE = 500;
const DRAWS = 30_000;

describe('fair random draws through a random-key index', () => {
  it('draws every member equally often (chi-square at p = 0.001), reading a few index entries per draw', async () => {
    const members = population(SIZE, 'population-1');
    const { readBucket, stats } = readerOf(members);
    const random = seeded('draws-1');
    const counts = new Map<string, number>();
    let failed = 0;
    for (let i = 0; i < DRAWS; i++) {
      const drawn = await drawFairly({ total: SIZE, want: 1, random, readBucket });
      if (!drawn) failed += 1;
      else counts.set(drawn.ids[0], (counts.get(drawn.ids[0]) ?? 0) + 1);
    }
    expect(failed).toBe(0);
    const { statistic, critical } = chiSquare(counts, SIZE, DRAWS);
    expect(statistic).toBeLessThan(critical);
    // Never more than cap + 1 entries asked for per read, a handful of reads per draw: never the whole set.
    const { cap } = bucketsFor(SIZE);
    expect(stats.largestAsked).toBe(cap + 1);
    expect(stats.reads / DRAWS).toBeLessThan((cap / 8) * 1.25);
    expect(stats.membersRead / DRAWS).toBeLessThan(SIZE / 10);
  });

  it('the naive draw (first key at or after a random point) fails the same test: the test can tell', async () => {
    const members = population(SIZE, 'population-1');
    const random = seeded('draws-naive');
    const counts = new Map<string, number>();
    for (let i = 0; i < DRAWS; i++) {
      const point = random();
      const id = (members.find((member) => member.key >= point) ?? members[0]).id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const { statistic, critical } = chiSquare(counts, SIZE, DRAWS);
    expect(statistic).toBeGreaterThan(critical * 5);
  });

  it('keeps a member standing in two of the sets read once as likely as one standing in one', async () => {
    // 150 of 500 members stand twice (an image tagged with both breeds asked for): 650 entries.
    const base = population(SIZE, 'population-2');
    const entries: Keyed[] = [...base.map((member, i) => ({ ...member, copies: i < 150 ? 2 : 1 })), ...base.slice(0, 150).map((member) => ({ ...member, copies: 2 }))].sort(
      (a, b) => a.key - b.key,
    );
    const { readBucket } = readerOf(entries);
    const random = seeded('draws-2');
    const counts = new Map<string, number>();
    for (let i = 0; i < DRAWS; i++) {
      const drawn = await drawFairly({ total: entries.length, want: 1, random, readBucket });
      const id = drawn!.ids[0];
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const { statistic, critical } = chiSquare(counts, SIZE, DRAWS);
    expect(statistic).toBeLessThan(critical);
    const twice = new Set(base.slice(0, 150).map((member) => member.id));
    const share = [...counts].filter(([id]) => twice.has(id)).reduce((sum, [, n]) => sum + n, 0) / DRAWS;
    expect(share).toBeGreaterThan(0.28);
    expect(share).toBeLessThan(0.32);
  });

  it('draws distinct members, at most as many as there are', async () => {
    const members = population(SIZE, 'population-3');
    const { readBucket } = readerOf(members);
    const random = seeded('draws-3');
    const hundred = await drawFairly({ total: SIZE, want: 100, random, readBucket });
    expect(new Set(hundred!.ids).size).toBe(100);
    const few = population(5, 'population-4');
    const all = await drawFairly({ total: 5, want: 100, random, readBucket: readerOf(few).readBucket });
    expect(new Set(all!.ids)).toEqual(new Set(few.map((member) => member.id)));
  });

  it('reports a bucket over the cap (the caller then draws by reading every match)', async () => {
    const crowded: Keyed[] = Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, key: 0.5 + i * 1e-9 }));
    const { readBucket } = readerOf(crowded);
    const random = seeded('draws-5');
    let reported = false;
    for (let i = 0; i < 200 && !reported; i++) reported = (await drawFairly({ total: 200, want: 1, random, readBucket })) === null;
    expect(reported).toBe(true);
  });

  it('sizes the cap so that an overflowing bucket is not expected even at 100,000 images', () => {
    const { buckets, cap } = bucketsFor(100_000);
    expect(buckets).toBe(12_500);
    expect(buckets * poissonTail(100_000 / buckets, cap)).toBeLessThanOrEqual(1e-9);
    expect(cap).toBeLessThan(45);
    expect(poissonTail(8, 8)).toBeCloseTo(0.4075, 3);
  });
});
