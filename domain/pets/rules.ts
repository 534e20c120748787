import type { PetProfile } from './pet.ts';

/** The spec's limits for pets (Limits section). */
export const PetLimits = {
  /** New photos per pet in a sliding window. */
  photosPerWindow: 100,
  windowHours: 24,
  filesPerRequest: 20,
  bodyConditionScore: { min: 1, max: 9 },
  ageMonths: { min: 0, max: 11 },
} as const;

/**
 * Microchip numbers accepted, after spaces, dots and dashes are removed:
 * - 15 digits: ISO 11784/11785 (FDX-B), the international standard;
 * - 10 hexadecimal characters: the older 125 kHz chips still common in Europe (FECAVA / Trovan / Destron);
 * - 9 digits: AVID's encrypted chips (US), often written AVID*012*345*678 — the stars are dropped too.
 * Stored normalised (upper-case, separators removed).
 */
export const normaliseMicrochip = (value: string): string | null => {
  const compact = value.replace(/^AVID/i, '').replace(/[\s.*-]/g, '').toUpperCase();
  if (/^\d{15}$/.test(compact)) return compact;
  if (/^[0-9A-F]{10}$/.test(compact)) return compact;
  if (/^\d{9}$/.test(compact)) return compact;
  return null;
};

const isRealDate = (value: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

/** Whole months from `from` (ISO date or date-time) to `to`, never negative. */
export const monthsBetween = (from: string, to: string): number => {
  const a = new Date(from.length === 10 ? `${from}T00:00:00Z` : from);
  const b = new Date(to);
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  if (b.getUTCDate() < a.getUTCDate()) months -= 1;
  return Math.max(0, months);
};

/** The pet's age in months at `at`, from its date of birth or the age its owner gave; null if unknown. */
export const petAgeMonthsAt = (profile: PetProfile, at: string): number | null => {
  if (profile.date_of_birth) return monthsBetween(profile.date_of_birth, at);
  if (profile.age_years !== null || profile.age_months !== null) {
    const given = (profile.age_years ?? 0) * 12 + (profile.age_months ?? 0);
    return given + (profile.age_recorded_at ? monthsBetween(profile.age_recorded_at, at) : 0);
  }
  return null;
};

/** The age fields of a request: a date of birth OR years + months (0–11), not both. */
export type AgeInput = { date_of_birth?: string | null; age_years?: number | null; age_months?: number | null };

/** Problems with the age fields of a request, one message each (empty when fine). */
export const ageProblems = (input: AgeInput, now: string, prefix = 'body'): string[] => {
  const problems: string[] = [];
  const hasAge = (input.age_years ?? null) !== null || (input.age_months ?? null) !== null;
  if (input.date_of_birth && hasAge) {
    problems.push(`${prefix}: give date_of_birth or age_years with age_months, not both`);
  }
  if (input.date_of_birth) {
    if (!isRealDate(input.date_of_birth)) problems.push(`${prefix}.date_of_birth must be a date (YYYY-MM-DD)`);
    else if (input.date_of_birth > now.slice(0, 10)) problems.push(`${prefix}.date_of_birth must not be in the future`);
  }
  const months = input.age_months ?? null;
  if (months !== null && (!Number.isInteger(months) || months < PetLimits.ageMonths.min || months > PetLimits.ageMonths.max)) {
    problems.push(`${prefix}.age_months must be an integer from 0 to 11`);
  }
  const years = input.age_years ?? null;
  if (years !== null && (!Number.isInteger(years) || years < 0 || years > 100)) problems.push(`${prefix}.age_years must be an integer from 0 to 100`);
  return problems;
};
