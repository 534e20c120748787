/**
 * Who made a photo and under which licence: recorded with the upload (catalogue imports), shown on
 * the Image resource as `attribution`, and searchable by licence family (`GET /images/search?license=`).
 * `license` is an SPDX identifier (`CC-BY-SA-4.0`, `CC0-1.0`, …); turning the names people write
 * ("CC BY-SA 4.0", "Creative Commons Attribution 4.0 International") into one is the importer's
 * job. Every field may be null: unknown, not guessed.
 */
export type ImageAttribution = {
  license: string | null;
  author: string | null;
  source_url: string | null;
  title: string | null;
};

/**
 * The licence families a search can ask for: the Creative Commons licences without their version
 * (`cc-by-sa` is every CC BY-SA version and port), CC0, the public-domain marks, and `other` for
 * any other licence named. An image without a licence is in no family.
 */
export const LICENSE_FAMILIES = ['cc0', 'public-domain', 'cc-by', 'cc-by-sa', 'cc-by-nd', 'cc-by-nc', 'cc-by-nc-sa', 'cc-by-nc-nd', 'other'] as const;
export type LicenseFamily = (typeof LICENSE_FAMILIES)[number];

export const isLicenseFamily = (value: string): value is LicenseFamily => (LICENSE_FAMILIES as readonly string[]).includes(value);

/** SPDX ids of the public-domain dedications and marks other than CC0. */
const PUBLIC_DOMAIN = new Set(['CC-PDDC', 'CC-PDM-1.0', 'PDDL-1.0', 'Unlicense']);

/** The family of an SPDX licence id (null for none). */
export const licenseFamilyOf = (license: string | null | undefined): LicenseFamily | null => {
  if (!license) return null;
  const id = license.trim().toUpperCase();
  if (id.startsWith('CC0-') || id === 'CC0') return 'cc0';
  if (PUBLIC_DOMAIN.has(license.trim())) return 'public-domain';
  const cc = /^CC-(BY(?:-NC)?(?:-SA|-ND)?)-\d/.exec(id);
  if (cc) return `cc-${cc[1].toLowerCase()}` as LicenseFamily;
  return 'other';
};

/** Attribution with every field empty is no attribution at all. */
export const attributionOrNull = (attribution: ImageAttribution | null | undefined): ImageAttribution | null =>
  attribution && (attribution.license || attribution.author || attribution.source_url || attribution.title) ? attribution : null;
