/**
 * Measurements of an animal's silhouette (a foreground mask cut out of a photo inside the
 * detector's box), pure: the body condition and muscle analysers work on these numbers only.
 *
 * - Top view (`top`/`back` photos): the body's width across its long axis, position by position.
 *   Chest = widest point in the front window (10–35 % of the length), hips = widest in the rear
 *   window (65–90 %), waist = narrowest in the middle (40–60 %). Which end is the head does not
 *   matter: the windows are symmetric.
 * - Side view (`side` photos): per column, the lower edge of the torso (the first run of animal
 *   pixels from the top line down; columns whose run reaches the ground are legs and are skipped).
 *   Chest = the deepest belly point in the chest window (15–40 % of the torso from either end,
 *   whichever is deeper), flank = the mean belly over 70–80 % from that end; tuck = how far the
 *   belly line rises from chest to flank relative to the chest's depth; sag = how far the middle of
 *   the belly (40–60 %) hangs below the chest's lowest point.
 */
export type Mask = { width: number; height: number; /** 1 = animal, 0 = background, row by row */ data: Uint8Array };

export type TopMeasurement = {
  view: 'top';
  length_px: number;
  chest_width: number;
  waist_width: number;
  hip_width: number;
  /** waist / the wider of chest and hips: < 1 an indentation, ≥ 1 none (a convex flank) */
  waist_ratio: number;
  /** hips / chest (hindquarter width) */
  hip_ratio: number;
  /** how far the rear contour (hip peak → 95 % of the length) falls below its chord, share of chest width: > 0 concave (pinched), < 0 convex (full) */
  hind_concavity: number;
};

export type SideMeasurement = {
  view: 'side';
  length_px: number;
  chest_depth: number;
  /** (belly line at the chest − belly line at the flank) / chest depth */
  tuck: number;
  /** (belly at mid-body − belly at the chest) / chest depth; > 0 the belly hangs below the chest */
  sag: number;
};

export type SilhouetteMeasurement = TopMeasurement | SideMeasurement;

const smooth = (values: number[], radius: number): number[] =>
  values.map((_, index) => {
    let sum = 0;
    let count = 0;
    for (let k = Math.max(0, index - radius); k <= Math.min(values.length - 1, index + radius); k++) {
      sum += values[k];
      count++;
    }
    return sum / count;
  });

const windowOf = (values: number[], from: number, to: number): { value: number; index: number }[] => {
  const start = Math.round(from * (values.length - 1));
  const end = Math.round(to * (values.length - 1));
  const out: { value: number; index: number }[] = [];
  for (let index = start; index <= end; index++) out.push({ value: values[index], index });
  return out;
};

const maxOf = (items: { value: number; index: number }[]) => items.reduce((best, item) => (item.value > best.value ? item : best));
const minOf = (items: { value: number; index: number }[]) => items.reduce((best, item) => (item.value < best.value ? item : best));

const at = (mask: Mask, x: number, y: number): number => mask.data[y * mask.width + x];

/** Bounding box of the animal pixels (null: none). */
export const maskBounds = (mask: Mask): { minX: number; minY: number; maxX: number; maxY: number; pixels: number } | null => {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -1;
  let maxY = -1;
  let pixels = 0;
  for (let y = 0; y < mask.height; y++) {
    for (let x = 0; x < mask.width; x++) {
      if (!at(mask, x, y)) continue;
      pixels++;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  return pixels === 0 ? null : { minX, minY, maxX, maxY, pixels };
};

const MIN_LENGTH_PX = 40;

/** Top/back view: the width profile along the long axis. Null when the silhouette is too small to measure. */
export const measureTopView = (mask: Mask): TopMeasurement | null => {
  const bounds = maskBounds(mask);
  if (!bounds) return null;
  const horizontal = bounds.maxX - bounds.minX >= bounds.maxY - bounds.minY;
  const [from, to] = horizontal ? [bounds.minX, bounds.maxX] : [bounds.minY, bounds.maxY];
  const [acrossFrom, acrossTo] = horizontal ? [bounds.minY, bounds.maxY] : [bounds.minX, bounds.maxX];
  if (to - from + 1 < MIN_LENGTH_PX) return null;
  const raw: number[] = [];
  for (let t = from; t <= to; t++) {
    let count = 0;
    for (let s = acrossFrom; s <= acrossTo; s++) count += horizontal ? at(mask, t, s) : at(mask, s, t);
    raw.push(count);
  }
  const profile = smooth(raw, Math.max(1, Math.round(raw.length * 0.015)));
  const chest = maxOf(windowOf(profile, 0.1, 0.35));
  const hip = maxOf(windowOf(profile, 0.65, 0.9));
  const waist = minOf(windowOf(profile, 0.4, 0.6));
  // The front/rear windows are symmetric; call the wider end the chest.
  const [chestEnd, hipEnd] = chest.value >= hip.value ? [chest, hip] : [hip, chest];
  const rearward = hipEnd.index > chestEnd.index ? 1 : -1;
  const tailIndex = Math.round(rearward > 0 ? 0.95 * (profile.length - 1) : 0.05 * (profile.length - 1));
  let gap = 0;
  let samples = 0;
  for (let index = hipEnd.index; index !== tailIndex; index += rearward) {
    const share = (index - hipEnd.index) / (tailIndex - hipEnd.index);
    const chord = hipEnd.value + share * (profile[tailIndex] - hipEnd.value);
    gap += chord - profile[index];
    samples++;
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    view: 'top',
    length_px: raw.length,
    chest_width: round(chestEnd.value),
    waist_width: round(waist.value),
    hip_width: round(hipEnd.value),
    waist_ratio: round(waist.value / Math.max(chestEnd.value, hipEnd.value)),
    hip_ratio: round(hipEnd.value / chestEnd.value),
    hind_concavity: round(samples === 0 ? 0 : gap / samples / chestEnd.value),
  };
};

/** Side view: belly line against the chest's depth. Null when no torso can be told from the legs. */
export const measureSideView = (mask: Mask): SideMeasurement | null => {
  const bounds = maskBounds(mask);
  if (!bounds) return null;
  const height = bounds.maxY - bounds.minY + 1;
  const groundLine = bounds.maxY - Math.max(1, Math.round(height * 0.1));
  const columns: { x: number; top: number; belly: number }[] = [];
  for (let x = bounds.minX; x <= bounds.maxX; x++) {
    let top = -1;
    for (let y = bounds.minY; y <= bounds.maxY; y++) {
      if (at(mask, x, y)) {
        top = y;
        break;
      }
    }
    if (top < 0) continue;
    let belly = top;
    while (belly + 1 <= bounds.maxY && at(mask, x, belly + 1)) belly++;
    // A run reaching the ground is a leg (or the whole animal lying down): not torso.
    if (belly >= groundLine) continue;
    columns.push({ x, top, belly });
  }
  if (columns.length < MIN_LENGTH_PX) return null;
  const bellyLine = smooth(
    columns.map((column) => column.belly),
    Math.max(1, Math.round(columns.length * 0.015)),
  );
  const topLine = columns.map((column) => column.top);
  const mean = (items: { value: number }[]) => items.reduce((sum, item) => sum + item.value, 0) / items.length;
  // Either end may be the head: the chest is the deeper of the two chest windows; the flank is the
  // belly over 70–80 % of the length from it (behind the ribs, before the hind legs).
  const front = maxOf(windowOf(bellyLine, 0.15, 0.4));
  const rear = maxOf(windowOf(bellyLine, 0.6, 0.85));
  const chest = front.value >= rear.value ? front : rear;
  const flankValue = mean(chest === front ? windowOf(bellyLine, 0.7, 0.8) : windowOf(bellyLine, 0.2, 0.3));
  const middle = maxOf(windowOf(bellyLine, 0.4, 0.6));
  const chestTop = Math.min(...windowOf(topLine, Math.max(0, chest.index / (columns.length - 1) - 0.05), Math.min(1, chest.index / (columns.length - 1) + 0.05)).map((item) => item.value));
  const chestDepth = chest.value - chestTop + 1;
  if (chestDepth < 5) return null;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    view: 'side',
    length_px: columns.length,
    chest_depth: round(chestDepth),
    tuck: round((chest.value - flankValue) / chestDepth),
    sag: round((middle.value - chest.value) / chestDepth),
  };
};
