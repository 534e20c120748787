import { describe, expect, it } from 'vitest';
import { bodyWeight, uploadBudget } from './upload-budget.ts';

const MiB = 1024 * 1024;

describe('uploadBudget', () => {
  it('lets uploads in while their shares fit, and refuses the one that would not', () => {
    const budget = uploadBudget(100 * MiB);
    const first = budget.take(60 * MiB);
    expect(first).not.toBeNull();
    expect(budget.take(50 * MiB)).toBeNull();
    const second = budget.take(40 * MiB);
    expect(second).not.toBeNull();
    expect(budget.held()).toBe(100 * MiB);
    first?.();
    expect(budget.take(50 * MiB)).not.toBeNull();
  });

  it('always lets one upload in, however large', () => {
    const budget = uploadBudget(10 * MiB);
    const alone = budget.take(200 * MiB);
    expect(alone).not.toBeNull();
    expect(budget.take(1)).toBeNull();
    alone?.();
    expect(budget.held()).toBe(0);
    expect(budget.take(1)).not.toBeNull();
  });

  it('gives a share back once, however often its release is called', () => {
    const budget = uploadBudget(100 * MiB);
    const give = budget.take(30 * MiB) as () => void;
    budget.take(30 * MiB);
    give();
    give();
    expect(budget.held()).toBe(30 * MiB);
  });
});

describe('uploadBudget.acquire (work already received, which waits instead of being refused)', () => {
  it('waits for room, in arrival order, and refuses take() while anyone waits', async () => {
    const budget = uploadBudget(100 * MiB);
    const first = budget.take(80 * MiB) as () => void;
    const order: string[] = [];
    const a = budget.acquire(50 * MiB).then((give) => (order.push('a'), give));
    const b = budget.acquire(10 * MiB).then((give) => (order.push('b'), give));
    // 10 MiB would fit, but a waits before it: neither take() nor b jumps the queue.
    expect(budget.take(10 * MiB)).toBeNull();
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    const [giveA, giveB] = await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
    expect(budget.held()).toBe(60 * MiB);
    giveA();
    giveB();
    expect(budget.held()).toBe(0);
  });

  it('lets in at once what fits', async () => {
    const budget = uploadBudget(100 * MiB);
    const give = await budget.acquire(150 * MiB);
    expect(budget.held()).toBe(150 * MiB);
    give();
  });
});

describe('bodyWeight', () => {
  it('counts a body, JSON or multipart, twice its length', () => {
    expect(bodyWeight({ 'content-type': 'application/json', 'content-length': '1000' }, 10_000)).toBe(2000);
    expect(bodyWeight({ 'content-type': 'multipart/form-data; boundary=x', 'content-length': '1000' }, 10_000)).toBe(2000);
  });

  it('counts a body of unknown or absurd length at the route limit', () => {
    expect(bodyWeight({ 'content-type': 'application/json' }, 10_000)).toBe(20_000);
    expect(bodyWeight({ 'content-type': 'application/json', 'content-length': 'lots' }, 10_000)).toBe(20_000);
    expect(bodyWeight({ 'content-type': 'application/json', 'content-length': '999999999' }, 10_000)).toBe(20_000);
  });
});
