import { describe, expect, it } from 'vitest';
import { idBatcher } from './id-batcher.ts';

const store = (docs: Record<string, { name: string; tags: string[] }>) => {
  const queries: string[][] = [];
  let failNext = false;
  const readMany = async (ids: string[]) => {
    queries.push(ids);
    if (failNext) {
      failNext = false;
      throw new Error('server gone');
    }
    return new Map(ids.filter((id) => docs[id]).map((id) => [id, structuredClone(docs[id])]));
  };
  return { queries, readMany, failOnce: () => (failNext = true), docs };
};

describe('idBatcher', () => {
  it('sends the ids asked for in one turn as one query and gives each caller its own documents', async () => {
    const backing = store({ a: { name: 'A', tags: ['x'] }, b: { name: 'B', tags: [] }, c: { name: 'C', tags: [] } });
    const byIds = idBatcher(backing.readMany);
    const [first, second, third] = await Promise.all([byIds(['a', 'b']), byIds(['a', 'zz']), byIds(['c'])]);
    expect(backing.queries).toEqual([['a', 'b', 'zz', 'c']]);
    expect([...first.keys()]).toEqual(['a', 'b']);
    expect([...second.keys()]).toEqual(['a']);
    expect([...third.keys()]).toEqual(['c']);
    // Two callers of one id never share a document: a change by one is not seen by the other.
    (first.get('a') as { tags: string[] }).tags.push('changed');
    expect(second.get('a')?.tags).toEqual(['x']);
  });

  it('asks again for ids asked after a query left, so a read sees writes made before it was asked', async () => {
    const backing = store({ a: { name: 'A', tags: [] } });
    const byIds = idBatcher(backing.readMany);
    expect((await byIds(['a'])).get('a')?.name).toBe('A');
    backing.docs.a = { name: 'A2', tags: [] };
    expect((await byIds(['a'])).get('a')?.name).toBe('A2');
    expect(backing.queries).toEqual([['a'], ['a']]);
  });

  it('splits a large turn into queries of at most maxIds and fails every caller of a failed turn', async () => {
    const backing = store({});
    const byIds = idBatcher(backing.readMany, 2);
    await Promise.all([byIds(['a', 'b']), byIds(['c', 'd', 'e'])]);
    expect(backing.queries).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    backing.failOnce();
    const outcomes = await Promise.allSettled([byIds(['a']), byIds(['b'])]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((await byIds([])).size).toBe(0);
  });
});
