import { parseRange } from './calories.ts';

/**
 * Weight and age estimates from breed data (pure, deterministic).
 *
 * Growth: a Brody (monomolecular) curve, w(t) = A · (1 − b · e^(−k·t)), the usual shape of
 * post-natal growth in dogs, cats and horses. A is the breed's adult weight, b makes w(0) the
 * birth weight (a share of A per species), and k makes the animal reach 98 % of A at the age of
 * maturity of its size class (small dogs ≈ 10 months, giant dogs ≈ 20, cats 12, horses 60).
 * Body condition: each BCS point above 5 is about 10 % over ideal weight, each point below about
 * 10 % under (WSAVA body condition guidance).
 */

export type Species = '1' | '2' | '3';
export type BreedData = { id: string; name: string; species_id: string; weight_kg: string | null; life_span: string | null };

/** Birth weight as a share of adult weight, per species. */
const BIRTH_SHARE: Record<Species, number> = { '1': 0.03, '2': 0.02, '3': 0.1 };
const SPECIES_NAME: Record<Species, string> = { '1': 'cat', '2': 'dog', '3': 'horse' };

/** Size class from the adult (ideal) weight: dogs toy/small/medium/large/giant, cats small/medium/large, horses miniature/pony/light/heavy. */
export const sizeClassification = (species: string, adultKg: number): string => {
  if (species === '3') return adultKg < 150 ? 'miniature' : adultKg < 400 ? 'pony' : adultKg < 700 ? 'light' : 'heavy';
  if (species === '1') return adultKg < 3.5 ? 'small' : adultKg <= 5.5 ? 'medium' : 'large';
  return adultKg < 5 ? 'toy' : adultKg < 10 ? 'small' : adultKg < 25 ? 'medium' : adultKg < 45 ? 'large' : 'giant';
};

/** Months to reach (98 % of) adult weight, by species and size class. */
export const maturityMonths = (species: string, size: string): number => {
  if (species === '3') return 60;
  if (species === '1') return 12;
  return { toy: 9, small: 10, medium: 12, large: 15, giant: 20 }[size] ?? 12;
};

/** Share of adult weight reached at `ageMonths` on the Brody curve. */
export const growthShare = (species: Species, size: string, ageMonths: number): number => {
  const b = 1 - BIRTH_SHARE[species];
  const k = Math.log(b / 0.02) / maturityMonths(species, size);
  return Math.min(1, 1 - b * Math.exp(-k * Math.max(0, ageMonths)));
};

/** Life stage by species and age (months): AAHA/AAFP stages for dogs and cats, common stages for horses. */
export const lifeStage = (species: string, ageMonths: number, size = 'medium'): string => {
  if (species === '3') return ageMonths < 12 ? 'foal' : ageMonths < 48 ? 'young' : ageMonths < 180 ? 'adult' : 'senior';
  if (species === '1') return ageMonths < 12 ? 'kitten' : ageMonths < 24 ? 'young_adult' : ageMonths < 132 ? 'adult' : 'senior';
  const senior = size === 'giant' || size === 'large' ? 72 : 84;
  return ageMonths < maturityMonths('2', size) ? 'puppy' : ageMonths < 24 ? 'young_adult' : ageMonths < senior ? 'adult' : 'senior';
};

const round1 = (value: number) => Math.round(value * 10) / 10;

export type WeightEstimate =
  | { ok: true; weight_kg: number; size_classification: string; reasons: string }
  | { ok: false; reason: string };

export const estimateWeight = (input: { breed: BreedData | null; ageMonths: number | null; bcs: number | null }): WeightEstimate => {
  const { breed, ageMonths, bcs } = input;
  if (!breed) return { ok: false, reason: 'the pet has no breed: a weight estimate needs the breed’s standard weight range' };
  const range = parseRange(breed.weight_kg);
  const species = breed.species_id as Species;
  if (!range || !BIRTH_SHARE[species]) return { ok: false, reason: `breed '${breed.id}' has no usable weight range` };
  const ideal = (range.low + range.high) / 2;
  const size = sizeClassification(species, ideal);
  const reasons = [`${breed.name} adults weigh ${range.low}–${range.high} kg (ideal taken as the middle, ${round1(ideal)} kg; ${size} ${SPECIES_NAME[species]})`];
  let weight = ideal;
  if (ageMonths === null) {
    reasons.push('age unknown: assumed adult');
  } else {
    const share = growthShare(species, size, ageMonths);
    weight = ideal * share;
    reasons.push(
      share < 0.995
        ? `at ${ageMonths} months a ${size} ${SPECIES_NAME[species]} has reached about ${Math.round(share * 100)} % of adult weight (growth curve to maturity at ${maturityMonths(species, size)} months)`
        : `at ${ageMonths} months fully grown`,
    );
  }
  if (bcs !== null) {
    const factor = 1 + 0.1 * (bcs - 5);
    weight *= factor;
    reasons.push(bcs === 5 ? 'body condition 5/9: ideal' : `body condition ${bcs}/9: about ${Math.abs(Math.round((factor - 1) * 100))} % ${bcs > 5 ? 'over' : 'under'} ideal weight`);
  } else {
    reasons.push('no body condition score: ideal condition assumed');
  }
  return { ok: true, weight_kg: round1(weight), size_classification: size, reasons: reasons.join('; ') };
};

export type AgeEvidence = {
  species: string | null;
  /** Age from the record (date of birth or the age the owner gave), now. */
  recordedAgeMonths: number | null;
  /** Ages given with photos at upload, carried forward to now (months), newest photo first. */
  photoAgeMonths: number[];
  breed: BreedData | null;
};

export type AgeEstimate =
  | { ok: true; age_months: number; plausible_range: string; life_stage: string; reasons: string }
  | { ok: false; reason: string };

/**
 * Exact when the record gives an age; else from the ages given with the photos (each carried
 * forward to today; their spread is the plausible range). Without either there is no evidence of
 * age that this service can measure, and it says so instead of guessing.
 */
export const estimateAge = (evidence: AgeEvidence): AgeEstimate => {
  const species = evidence.species ?? evidence.breed?.species_id ?? null;
  const range = evidence.breed ? parseRange(evidence.breed.weight_kg) : null;
  const size = species && range ? sizeClassification(species, (range.low + range.high) / 2) : 'medium';
  const stageOf = (months: number) => (species ? lifeStage(species, months, size) : 'unknown');
  if (evidence.recordedAgeMonths !== null) {
    const months = evidence.recordedAgeMonths;
    return {
      ok: true,
      age_months: months,
      plausible_range: `${months}–${months} months`,
      life_stage: stageOf(months),
      reasons: `exact: from the pet's record (date of birth or the age its owner gave), ${months} months today`,
    };
  }
  if (evidence.photoAgeMonths.length > 0) {
    const low = Math.min(...evidence.photoAgeMonths);
    const high = Math.max(...evidence.photoAgeMonths);
    const months = evidence.photoAgeMonths[0];
    const lifeSpan = evidence.breed ? parseRange(evidence.breed.life_span) : null;
    return {
      ok: true,
      age_months: months,
      plausible_range: `${low}–${high} months`,
      life_stage: stageOf(months),
      reasons:
        `from the ages given with ${evidence.photoAgeMonths.length} photo(s), carried forward to today` +
        (low !== high ? `; they disagree by ${high - low} months` : '') +
        (lifeSpan ? `; the breed lives ${lifeSpan.low}–${lifeSpan.high} years` : ''),
    };
  }
  return { ok: false, reason: 'no evidence of age: the record has no date of birth or age and no photo was uploaded with an age' };
};
