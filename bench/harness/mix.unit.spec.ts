import { describe, expect, it } from 'vitest';
import { deckOf, harmonicRate, type MixKind } from './mix.ts';

const kind = (name: string, share: number): MixKind => ({ name, share, next: () => ({ method: 'GET', path: `/${name}`, headers: {} }) });

describe('the mix of bench item 8', () => {
  it('deals each kind into the deck by its share, shuffled', () => {
    const kinds = [kind('reads', 0.6), kind('votes', 0.38), kind('uploads', 0.02)];
    const deck = deckOf(kinds);
    const count = (name: string) => deck.filter((entry) => entry.name === name).length;
    expect(deck).toHaveLength(200);
    expect([count('reads'), count('votes'), count('uploads')]).toEqual([120, 76, 4]);
    expect(deck.slice(0, 120).every((entry) => entry.name === 'reads')).toBe(false);
  });

  it('combines the rates alone harmonically, and gives 0 when a kind answered nothing alone', () => {
    const kinds = [kind('a', 0.5), kind('b', 0.5)];
    // half the requests at 1,000/s and half at 100/s: 1 / (0.5/1000 + 0.5/100) = 181.8/s
    expect(harmonicRate(kinds, new Map([['a', 1000], ['b', 100]]))).toBeCloseTo(181.82, 1);
    expect(harmonicRate(kinds, new Map([['a', 1000], ['b', 0]]))).toBe(0);
  });
});
