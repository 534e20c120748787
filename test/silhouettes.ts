/**
 * TEST ONLY — synthetic animal silhouettes drawn with sharp (SVG polygons) at known proportions,
 * for the body-condition and muscle-condition analyses. The body is drawn in the vision double's
 * dog colour by default (test/vision-double.ts boxes it), on a grey ground.
 *
 * A shape is a width (top view) or belly-depth (side view) profile given as control points along
 * the body's length (0 = one end, 1 = the other), joined by cosine easing — so the waist, chest,
 * hips and belly line sit exactly where the test says.
 */
import sharp from 'sharp';
import { DOG_RGB } from './vision-double.ts';

export type Profile = [number, number][];

const ease = (points: Profile, s: number): number => {
  for (let index = 1; index < points.length; index++) {
    const [x1, y1] = points[index];
    if (s <= x1) {
      const [x0, y0] = points[index - 1];
      const t = (s - x0) / (x1 - x0);
      return y0 + ((1 - Math.cos(Math.PI * t)) / 2) * (y1 - y0);
    }
  }
  return points[points.length - 1][1];
};

const hex = (rgb: { r: number; g: number; b: number }) => `#${[rgb.r, rgb.g, rgb.b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

const render = async (width: number, height: number, shapes: string, format: 'png' | 'jpeg'): Promise<Buffer> => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#808080"/>${shapes}</svg>`;
  const image = sharp(Buffer.from(svg));
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 92 }).toBuffer();
};

/** Top view: body along x, `profile` = width as a share of `chestPx`. */
export const topView = async (profile: Profile, options: { chestPx?: number; lengthPx?: number; colour?: { r: number; g: number; b: number }; format?: 'png' | 'jpeg'; vertical?: boolean } = {}) => {
  const chest = options.chestPx ?? 140;
  const length = options.lengthPx ?? 440;
  const [W, H] = [640, 400];
  const x0 = (W - length) / 2;
  const steps = 200;
  const upper: string[] = [];
  const lower: string[] = [];
  for (let i = 0; i <= steps; i++) {
    const s = i / steps;
    const half = (ease(profile, s) * chest) / 2;
    const x = x0 + s * length;
    upper.push(`${x.toFixed(1)},${(H / 2 - half).toFixed(1)}`);
    lower.unshift(`${x.toFixed(1)},${(H / 2 + half).toFixed(1)}`);
  }
  const points = [...upper, ...lower].join(' ');
  const transform = options.vertical ? ` transform="rotate(90 ${W / 2} ${H / 2})"` : '';
  return render(W, H, `<polygon points="${points}" fill="${hex(options.colour ?? DOG_RGB)}"${transform}/>`, options.format ?? 'png');
};

/** Side view: straight back at y = 110, belly at 110 + depth × `profile`, four legs to the ground. */
export const sideView = async (profile: Profile, options: { depthPx?: number; format?: 'png' | 'jpeg' } = {}) => {
  const depth = options.depthPx ?? 120;
  const [W, H, back, ground] = [640, 400, 110, 370];
  const [x0, length] = [100, 440];
  const steps = 200;
  const belly: string[] = [];
  for (let i = steps; i >= 0; i--) {
    const s = i / steps;
    belly.push(`${(x0 + s * length).toFixed(1)},${(back + ease(profile, s) * depth).toFixed(1)}`);
  }
  const body = `<polygon points="${x0},${back} ${x0 + length},${back} ${belly.join(' ')}" fill="${hex(DOG_RGB)}"/>`;
  const legs = [0.12, 0.2, 0.8, 0.88]
    .map((s) => `<rect x="${x0 + s * length - 12}" y="${back + depth * 0.5}" width="24" height="${ground - back - depth * 0.5}" fill="${hex(DOG_RGB)}"/>`)
    .join('');
  return render(W, H, body + legs, options.format ?? 'png');
};

/** Top-view profiles at known proportions (width as a share of the chest). */
export const TOP = {
  /** hourglass, waist 0.78 of the chest: ideal (WSAVA 4–5) */
  ideal: [[0, 0.35], [0.08, 0.8], [0.25, 1], [0.5, 0.78], [0.75, 0.95], [0.92, 0.7], [1, 0.3]] as Profile,
  /** no waist, the middle bulges past the chest: obese (7–9) */
  obese: [[0, 0.45], [0.08, 0.85], [0.25, 1], [0.5, 1.12], [0.75, 1], [0.92, 0.8], [1, 0.4]] as Profile,
  /** deep waist, 0.58 of the chest: thin (2–3) */
  thin: [[0, 0.3], [0.08, 0.75], [0.25, 1], [0.5, 0.58], [0.75, 0.85], [0.92, 0.6], [1, 0.25]] as Profile,
  /** ideal waist, hindquarters as wide as the chest and rounded: full muscle */
  fullHindquarters: [[0, 0.35], [0.08, 0.8], [0.25, 1], [0.5, 0.8], [0.75, 1], [0.9, 0.9], [1, 0.35]] as Profile,
  /** ideal waist, narrow pinched hindquarters falling in behind the hips: wasted */
  wastedHindquarters: [[0, 0.35], [0.08, 0.8], [0.25, 1], [0.5, 0.62], [0.7, 0.66], [0.78, 0.4], [0.95, 0.3], [1, 0.2]] as Profile,
};

/** Side-view belly-depth profiles (share of the chest depth below the back line). */
export const SIDE = {
  /** belly rises to 0.76 of the chest depth at the flank: ideal tuck */
  ideal: [[0, 0.6], [0.1, 0.95], [0.3, 1], [0.55, 0.9], [0.75, 0.8], [0.9, 0.76], [1, 0.6]] as Profile,
  /** belly hangs below the chest in the middle: obese */
  obese: [[0, 0.6], [0.1, 0.95], [0.3, 1.05], [0.5, 1.2], [0.7, 1.1], [0.85, 1], [1, 0.7]] as Profile,
  /** belly rises to half the chest depth: marked tuck, thin */
  thin: [[0, 0.55], [0.1, 0.95], [0.3, 1], [0.55, 0.7], [0.75, 0.55], [0.9, 0.52], [1, 0.45]] as Profile,
};
