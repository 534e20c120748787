import spdxLicenses from 'spdx-license-list';

/**
 * A licence as people write it in a manifest — an SPDX id in any case (`cc-by-sa-4.0`), a short
 * Creative Commons name (`CC BY-SA 4.0`, `CC0`), or a full name (`Creative Commons
 * Attribution-ShareAlike 4.0 International`, `Public Domain Mark 1.0`) — as its SPDX id, from the
 * SPDX licence list (spdx-license-list). A name that names no licence exactly (an unknown name, or
 * a CC licence without its version) answers null: the importer reports it, it does not guess.
 */

/** Words people put around a licence name that the SPDX ids leave out or abbreviate. */
const WORDS: [RegExp, string][] = [
  [/creative\s*commons/g, 'cc'],
  [/\battribution\b/g, 'by'],
  [/\bshare[\s-]*alike\b/g, 'sa'],
  [/\bnon[\s-]*commercial\b/g, 'nc'],
  [/\bno[\s-]*deriv(?:ative)?s?\b/g, 'nd'],
  [/\bpublic\s*domain\s*mark\b/g, 'cc pdm'],
  [/\bpublic\s*domain\s*dedication\b/g, 'cc0'],
  [/\b(?:international|unported|generic|universal|licen[cs]e|the|version|v(?=\d))\b/g, ' '],
];

/** Lower-case words joined by `-`: `Creative Commons Attribution-ShareAlike 4.0 International` → `cc-by-sa-4.0`. */
export const licenceKey = (text: string): string => {
  let key = text.toLowerCase();
  for (const [pattern, replacement] of WORDS) key = key.replace(pattern, replacement);
  return key
    .replace(/\bv(\d)/g, '$1')
    .split(/[^a-z0-9.+]+/)
    .filter((word) => word.length > 0)
    .join('-');
};

const BY_KEY = (() => {
  const keys = new Map<string, string>();
  // ids first, so an id wins over another licence's name that normalises the same
  for (const id of Object.keys(spdxLicenses)) keys.set(licenceKey(id), id);
  for (const [id, { name }] of Object.entries(spdxLicenses)) if (!keys.has(licenceKey(name))) keys.set(licenceKey(name), id);
  // CC0 is written without its version (there is only 1.0), the Public Domain Mark too
  keys.set('cc0', 'CC0-1.0');
  keys.set('cc-pdm', 'CC-PDM-1.0');
  return keys;
})();

/** The SPDX id a licence text names, or null when it names none exactly. */
export const normaliseLicence = (text: string): string | null => {
  const trimmed = text.trim();
  if (trimmed.length === 0) return null;
  if (Object.hasOwn(spdxLicenses, trimmed)) return trimmed;
  return BY_KEY.get(licenceKey(trimmed)) ?? null;
};
