/**
 * Daily energy needs of a dog or cat (and the maintenance need of a horse), pure functions.
 *
 * Dogs and cats: resting energy requirement RER = 70 × kg^0.75 kcal/day, multiplied by a
 * life-stage factor into the daily energy requirement (DER). The factors are the ones the WSAVA
 * Global Nutrition Committee and the usual veterinary nutrition references (NRC 2006, "Small
 * Animal Clinical Nutrition") tabulate; where those give a range we take its usual middle value.
 *
 * Horses: RER is not used for horses. Their maintenance need is the NRC (2007) digestible-energy
 * figure of 33.3 kcal DE per kg of body weight per day for an average adult at maintenance.
 */

export const LIFE_STAGES = ['puppy', 'kitten', 'junior', 'adult', 'adult_intact', 'inactive', 'weight_loss', 'senior', 'maintenance'] as const;
export type LifeStage = (typeof LIFE_STAGES)[number];

export type CalorieSpecies = 'dog' | 'cat' | 'horse';

export const speciesOfId = (speciesId: string | null | undefined): CalorieSpecies | null =>
  speciesId === '1' ? 'cat' : speciesId === '2' ? 'dog' : speciesId === '3' ? 'horse' : null;

/** Factor × RER, with what the stage means, per species. A stage missing for a species is not offered for it. */
export const LIFE_STAGE_FACTORS: Record<'dog' | 'cat', Partial<Record<LifeStage, { factor: number; meaning: string }>>> = {
  dog: {
    puppy: { factor: 3.0, meaning: 'puppy under 4 months' },
    junior: { factor: 2.0, meaning: 'growing dog from 4 to 12 months' },
    adult: { factor: 1.6, meaning: 'neutered adult' },
    adult_intact: { factor: 1.8, meaning: 'intact adult' },
    inactive: { factor: 1.2, meaning: 'inactive or obesity-prone adult' },
    weight_loss: { factor: 1.0, meaning: 'weight loss (fed at RER of the target weight)' },
    senior: { factor: 1.4, meaning: 'senior' },
  },
  cat: {
    kitten: { factor: 2.5, meaning: 'growing kitten under 12 months' },
    adult: { factor: 1.2, meaning: 'neutered adult' },
    adult_intact: { factor: 1.4, meaning: 'intact adult' },
    inactive: { factor: 1.0, meaning: 'inactive or obesity-prone adult' },
    weight_loss: { factor: 0.8, meaning: 'weight loss' },
    senior: { factor: 1.1, meaning: 'senior' },
  },
};

/** NRC (2007) maintenance digestible energy of an average adult horse, kcal per kg per day. */
export const HORSE_MAINTENANCE_KCAL_PER_KG = 33.3;

/** Age (months) from which a pet counts as senior: dogs 7 years, cats 11 years (AAHA / AAFP life-stage guidelines). */
export const SENIOR_FROM_MONTHS: Record<CalorieSpecies, number> = { dog: 84, cat: 132, horse: 240 };

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Resting energy requirement, kcal/day: 70 × kg^0.75. */
export const restingEnergyRequirement = (weightKg: number): number => {
  if (!(weightKg > 0) || !Number.isFinite(weightKg)) throw new RangeError('weight must be a positive number of kilograms');
  return 70 * weightKg ** 0.75;
};

/** The life stage a pet of this species and age is in (months unknown → adult, as an assumption the caller reports). */
export const lifeStageFor = (species: CalorieSpecies, ageMonths: number | null): LifeStage => {
  if (species === 'horse') return 'maintenance';
  if (ageMonths === null) return 'adult';
  if (species === 'dog') {
    if (ageMonths < 4) return 'puppy';
    if (ageMonths < 12) return 'junior';
  } else if (ageMonths < 12) {
    return 'kitten';
  }
  return ageMonths >= SENIOR_FROM_MONTHS[species] ? 'senior' : 'adult';
};

/** The life stages one species accepts. */
export const lifeStagesOf = (species: CalorieSpecies): LifeStage[] =>
  species === 'horse' ? ['maintenance'] : (Object.keys(LIFE_STAGE_FACTORS[species]) as LifeStage[]);

export type CalorieResult = {
  species: CalorieSpecies | null;
  weight_kg: number;
  life_stage: LifeStage | null;
  rer_kcal_per_day: number | null;
  factor: number | null;
  der_kcal_per_day: number | null;
  formula: string;
};

/**
 * Energy needs from a weight, a species (null = unknown) and a life stage. Unknown species: only
 * RER (the same formula for dogs and cats), no DER, because the factor depends on the species.
 * Throws RangeError for a life stage the species does not have.
 */
export const calorieNeeds = (weightKg: number, species: CalorieSpecies | null, lifeStage: LifeStage | null): CalorieResult => {
  if (species === 'horse') {
    if (lifeStage !== null && lifeStage !== 'maintenance') throw new RangeError(`life_stage '${lifeStage}' is not offered for horses (only maintenance)`);
    if (!(weightKg > 0) || !Number.isFinite(weightKg)) throw new RangeError('weight must be a positive number of kilograms');
    return {
      species,
      weight_kg: weightKg,
      life_stage: 'maintenance',
      rer_kcal_per_day: null,
      factor: null,
      der_kcal_per_day: round1(HORSE_MAINTENANCE_KCAL_PER_KG * weightKg),
      formula: `NRC 2007 horse maintenance: ${HORSE_MAINTENANCE_KCAL_PER_KG} kcal DE × kg`,
    };
  }
  const rer = restingEnergyRequirement(weightKg);
  if (species === null) {
    return { species, weight_kg: weightKg, life_stage: lifeStage, rer_kcal_per_day: round1(rer), factor: null, der_kcal_per_day: null, formula: 'RER = 70 × kg^0.75' };
  }
  const stage = lifeStage ?? 'adult';
  const entry = LIFE_STAGE_FACTORS[species][stage];
  if (!entry) throw new RangeError(`life_stage '${stage}' is not offered for ${species}s (one of ${lifeStagesOf(species).join(', ')})`);
  return {
    species,
    weight_kg: weightKg,
    life_stage: stage,
    rer_kcal_per_day: round1(rer),
    factor: entry.factor,
    der_kcal_per_day: round1(rer * entry.factor),
    formula: `DER = ${entry.factor} (${entry.meaning}) × RER; RER = 70 × kg^0.75`,
  };
};

/** "4 - 6" → {low: 4, high: 6}; a single number gives low = high; anything else null. */
export const parseRange = (text: string | null | undefined): { low: number; high: number } | null => {
  if (!text) return null;
  const numbers = text.match(/\d+(?:\.\d+)?/g)?.map(Number) ?? [];
  if (numbers.length === 0) return null;
  const low = Math.min(...numbers.slice(0, 2));
  const high = Math.max(...numbers.slice(0, 2));
  return low > 0 ? { low, high } : null;
};

/** The middle of a breed's adult weight range (kg), its ideal weight for these purposes. */
export const breedIdealWeightKg = (weightRange: string | null | undefined): number | null => {
  const range = parseRange(weightRange);
  return range ? round1((range.low + range.high) / 2) : null;
};
