/**
 * Fair random draws from a large set through an index on a random key, without reading the set.
 *
 * Every member carries a key drawn uniformly from [0, 1) once (the image's `random`, independent
 * of everything a search filters on), and the store can read the members whose key lies in a range
 * (an index on key). A draw:
 *
 *   1. cuts [0, 1) into B equal buckets, B = ⌈N / BUCKET_MEAN⌉ for the N members that match;
 *   2. picks a bucket uniformly and reads its members (at most C + 1 of them: a few index entries);
 *   3. picks a slot j uniformly among C slots; if the bucket has a member in slot j (j < its size
 *      c) that member is drawn, otherwise the draw starts again at 1.
 *
 * One round draws a given member with probability (1/B) · (1/C) — the bucket, then its slot —
 * whatever the bucket's size, as long as no bucket holds more than C members. Every member is
 * therefore equally likely, exactly, and rounds repeat until one draws: the result is uniform. The
 * naive draw (the first key at or after a uniform point) would instead favour members that follow a
 * wide gap, the same members on every request.
 *
 * C is the smallest cap such that some bucket exceeds it with probability at most OVERFLOW_ODDS
 * (bucket sizes are Poisson with mean N/B, the keys being uniform): about 4–5 rounds per draw at a
 * mean of 8. A bucket found above C (so rare that it is not expected in the life of a catalogue)
 * is reported (null) and the caller draws by reading every match instead; so is a draw that has
 * not ended after maxRounds.
 *
 * A member that stands in several of the sets read at once (an image tagged with two of the breeds
 * asked for has an entry under each) is kept with probability 1/copies, so it is no likelier than
 * a member standing once. Several draws without repeats redraw a member already drawn: each draw
 * is uniform among the members not yet drawn, so the result is a uniform random subset.
 */
export const BUCKET_MEAN = 8;
export const OVERFLOW_ODDS = 1e-9;

export type Member = { id: string; copies?: number };

export type FairDraw = {
  /** Members that match (entries, counting every copy). */
  total: number;
  /** How many distinct members to draw (at most total). */
  want: number;
  /** Uniform on [0, 1). */
  random: () => number;
  /** Up to `max` members whose key is in [low, high). */
  readBucket: (low: number, high: number, max: number) => Promise<Member[]>;
  maxRounds?: number;
};

/** P(X > cap) for X ~ Poisson(mean), summed term by term (no cancellation). */
export const poissonTail = (mean: number, cap: number): number => {
  let term = Math.exp(-mean);
  let tail = 0;
  for (let k = 1; k <= cap + 400; k++) {
    term *= mean / k;
    if (k > cap) tail += term;
    if (k > cap && term < tail * 1e-17) break;
  }
  return tail;
};

const sizes = new Map<number, { buckets: number; cap: number }>();
const SIZES_KEPT = 1000;

/** The buckets and the cap of a draw among `total` members (see above); the last SIZES_KEPT are remembered. */
export const bucketsFor = (total: number): { buckets: number; cap: number } => {
  const known = sizes.get(total);
  if (known) return known;
  const buckets = Math.max(1, Math.ceil(total / BUCKET_MEAN));
  const mean = total / buckets;
  let cap = Math.max(1, Math.ceil(mean));
  while (buckets * poissonTail(mean, cap) > OVERFLOW_ODDS) cap += 1;
  if (sizes.size >= SIZES_KEPT) sizes.clear();
  sizes.set(total, { buckets, cap });
  return { buckets, cap };
};

/** The drawn ids (distinct), or null when a bucket over the cap was met or the rounds ran out. */
export const drawFairly = async (draw: FairDraw): Promise<{ ids: string[]; rounds: number } | null> => {
  const want = Math.min(draw.want, draw.total);
  const { buckets, cap } = bucketsFor(draw.total);
  const maxRounds = draw.maxRounds ?? 200 + want * 50 * Math.ceil(cap / BUCKET_MEAN);
  const drawn = new Set<string>();
  let rounds = 0;
  while (drawn.size < want) {
    if (rounds++ >= maxRounds) return null;
    const bucket = Math.floor(draw.random() * buckets);
    const members = await draw.readBucket(bucket / buckets, (bucket + 1) / buckets, cap + 1);
    if (members.length > cap) return null;
    const slot = Math.floor(draw.random() * cap);
    if (slot >= members.length) continue;
    const member = members[slot];
    if ((member.copies ?? 1) > 1 && draw.random() * (member.copies ?? 1) >= 1) continue;
    drawn.add(member.id);
  }
  return { ids: [...drawn], rounds };
};
