/**
 * Portrait styles: each is a background drawn as SVG (rendered by sharp in the portrait processor)
 * behind the pet cut out of one of its photos. Pure: the same style gives the same drawing.
 * The spec names studio, pack_leader and birthday_party; the others follow the same idea.
 */
export const PORTRAIT_SIZE = { width: 1024, height: 1024 } as const;

export const PORTRAIT_STYLES = ['studio', 'pack_leader', 'birthday_party', 'royal', 'beach', 'winter'] as const;
export type PortraitStyle = (typeof PORTRAIT_STYLES)[number];

/** Renderers: `composite` is the built-in one (sharp: cut-out composed on the style's background). */
export const PORTRAIT_MODELS = ['composite'] as const;

export const isPortraitStyle = (value: string): value is PortraitStyle => (PORTRAIT_STYLES as readonly string[]).includes(value);

const svg = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${PORTRAIT_SIZE.width}" height="${PORTRAIT_SIZE.height}" viewBox="0 0 ${PORTRAIT_SIZE.width} ${PORTRAIT_SIZE.height}">${body}</svg>`;

/** Confetti dots at fixed places (a fixed arithmetic pattern, not random). */
const confetti = (colours: string[]) =>
  Array.from({ length: 60 }, (_, index) => {
    const x = (index * 173) % PORTRAIT_SIZE.width;
    const y = (index * 97) % 420;
    const colour = colours[index % colours.length];
    return `<rect x="${x}" y="${y}" width="14" height="22" rx="3" fill="${colour}" transform="rotate(${(index * 37) % 180} ${x + 7} ${y + 11})"/>`;
  }).join('');

const STYLE_SVG: Record<PortraitStyle, () => string> = {
  studio: () =>
    svg(
      `<defs><radialGradient id="g" cx="50%" cy="40%" r="75%"><stop offset="0" stop-color="#8a8f98"/><stop offset="1" stop-color="#2b2e33"/></radialGradient></defs>` +
        `<rect width="100%" height="100%" fill="url(#g)"/><ellipse cx="512" cy="960" rx="380" ry="40" fill="#1d1f23" opacity="0.6"/>`,
    ),
  pack_leader: () =>
    svg(
      `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f6a04d"/><stop offset="0.6" stop-color="#c2452d"/><stop offset="1" stop-color="#4a1f1a"/></linearGradient></defs>` +
        `<rect width="100%" height="100%" fill="url(#sky)"/><circle cx="760" cy="300" r="120" fill="#ffd27a"/>` +
        `<polygon points="0,760 220,520 420,700 640,480 880,720 1024,600 1024,1024 0,1024" fill="#2d1612"/>` +
        `<polygon points="0,880 300,760 600,860 1024,780 1024,1024 0,1024" fill="#1a0d0b"/>`,
    ),
  birthday_party: () =>
    svg(
      `<rect width="100%" height="100%" fill="#fde7f3"/>` +
        Array.from({ length: 8 }, (_, index) => `<rect x="${index * 128}" y="0" width="64" height="1024" fill="#f9c8e2"/>`).join('') +
        confetti(['#ff5a5f', '#ffb400', '#00a699', '#7b61ff', '#3ec1f3']) +
        `<path d="M0,120 Q128,200 256,120 T512,120 T768,120 T1024,120" stroke="#ff5a5f" stroke-width="8" fill="none"/>`,
    ),
  royal: () =>
    svg(
      `<rect width="100%" height="100%" fill="#3b0a45"/>` +
        Array.from({ length: 16 }, (_, index) => `<rect x="${index * 64}" y="0" width="32" height="1024" fill="#4b1658"/>`).join('') +
        `<rect x="24" y="24" width="976" height="976" fill="none" stroke="#d4af37" stroke-width="24"/>` +
        `<rect x="60" y="60" width="904" height="904" fill="none" stroke="#d4af37" stroke-width="6"/>`,
    ),
  beach: () =>
    svg(
      `<rect width="100%" height="60%" fill="#7fd3f7"/><rect y="60%" width="100%" height="15%" fill="#1f8fc4"/>` +
        `<rect y="75%" width="100%" height="25%" fill="#f1d9a0"/><circle cx="180" cy="160" r="90" fill="#fff3a1"/>`,
    ),
  winter: () =>
    svg(
      `<defs><linearGradient id="w" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1b3a5c"/><stop offset="1" stop-color="#9cc3e6"/></linearGradient></defs>` +
        `<rect width="100%" height="100%" fill="url(#w)"/><rect y="82%" width="100%" height="18%" fill="#f4f8fb"/>` +
        Array.from({ length: 80 }, (_, index) => `<circle cx="${(index * 211) % 1024}" cy="${(index * 131) % 820}" r="${3 + (index % 4)}" fill="#ffffff"/>`).join(''),
    ),
};

export const portraitBackgroundSvg = (style: PortraitStyle): string => STYLE_SVG[style]();

/** Where the cut-out goes: fitted inside 80 % of the width and 78 % of the height, centred, standing on the lower part. */
export const portraitPlacement = (cutWidth: number, cutHeight: number): { left: number; top: number; width: number; height: number } => {
  const scale = Math.min((PORTRAIT_SIZE.width * 0.8) / cutWidth, (PORTRAIT_SIZE.height * 0.78) / cutHeight);
  const width = Math.max(1, Math.round(cutWidth * scale));
  const height = Math.max(1, Math.round(cutHeight * scale));
  return { left: Math.round((PORTRAIT_SIZE.width - width) / 2), top: Math.round(PORTRAIT_SIZE.height * 0.94) - height, width, height };
};
