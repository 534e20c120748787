import countries from 'i18n-iso-countries';
import { describe, expect, it } from 'vitest';
import { careTips, personalisedTips, type CareTipInputs } from './care-tips.ts';
import { CLIMATE_BANDS, SOUTHERN_COUNTRIES, climateOf, hemisphereOf, seasonOf } from './climate.ts';

const base: CareTipInputs = {
  pet_id: 'p1',
  species_id: '2',
  breed: { id: 'beag', name: 'Beagle', weight_kg: { low: 9, high: 11 } },
  age_months: null,
  age_source: null,
  body_condition_score: null,
  muscle_wasting_risk: null,
  weight_kg: null,
  country: null,
  today: '2026-07-15T12:00:00.000Z',
};
const rulesOf = (inputs: Partial<CareTipInputs>) => personalisedTips({ ...base, ...inputs }).map((tip) => tip.id.replace('p1-', ''));

describe('climate table', () => {
  it('names only real ISO 3166-1 codes', () => {
    for (const code of [...SOUTHERN_COUNTRIES, ...Object.values(CLIMATE_BANDS).flat()]) expect(countries.isValid(code), code).toBe(true);
  });
  it('seasons follow the hemisphere', () => {
    expect(seasonOf(1, 'north')).toBe('winter');
    expect(seasonOf(1, 'south')).toBe('summer');
    expect(seasonOf(4, 'north')).toBe('spring');
    expect(seasonOf(10, 'south')).toBe('spring');
    expect(hemisphereOf('au')).toBe('south');
    expect(hemisphereOf('GB')).toBe('north');
    expect(climateOf('GB')).toBe('temperate');
    expect(climateOf('TH')).toBe('tropical');
    expect(climateOf('FI')).toBe('cold');
  });
});

describe('personalised care tips', () => {
  it('fires no rule when nothing is known', () => {
    expect(personalisedTips({ ...base, species_id: null, breed: null })).toEqual([]);
  });

  it('life stage from the age: puppy, adult, senior (large breeds earlier)', () => {
    expect(rulesOf({ age_months: 4, age_source: 'record' })).toEqual(['life_stage_puppy']);
    expect(rulesOf({ age_months: 40, age_source: 'record' })).toEqual(['life_stage_adult']);
    expect(rulesOf({ age_months: 90, age_source: 'estimate' })).toEqual(['life_stage_senior']);
    const large = { id: 'gsd', name: 'Shepherd', weight_kg: { low: 30, high: 40 } };
    expect(rulesOf({ age_months: 75, breed: large })).toEqual(['life_stage_senior']);
    expect(rulesOf({ age_months: 75 })).toEqual(['life_stage_adult']);
    const tip = personalisedTips({ ...base, age_months: 90, age_source: 'estimate' })[0];
    expect(tip.reasons).toContain('90 months');
    expect(tip.reasons).toContain('age estimate');
  });

  it('body condition bands and muscle risk', () => {
    expect(rulesOf({ body_condition_score: 2 })).toEqual(['bcs_underweight']);
    expect(rulesOf({ body_condition_score: 5 })).toEqual(['bcs_ideal']);
    expect(rulesOf({ body_condition_score: 7 })).toEqual(['bcs_overweight']);
    expect(rulesOf({ body_condition_score: 9 })).toEqual(['bcs_obese']);
    expect(rulesOf({ muscle_wasting_risk: true })).toEqual(['muscle_wasting_risk']);
    expect(rulesOf({ muscle_wasting_risk: false })).toEqual([]);
  });

  it('weight against the breed standard, not for a growing animal', () => {
    expect(rulesOf({ weight_kg: 14, age_months: 40 })).toEqual(['life_stage_adult', 'weight_above_breed_range']);
    expect(rulesOf({ weight_kg: 7, age_months: 40 })).toEqual(['life_stage_adult', 'weight_below_breed_range']);
    expect(rulesOf({ weight_kg: 10, age_months: 40 })).toEqual(['life_stage_adult']);
    expect(rulesOf({ weight_kg: 4, age_months: 3 })).toEqual(['life_stage_puppy']);
  });

  it('season by hemisphere and climate by country', () => {
    expect(rulesOf({ country: 'GB' })).toEqual(['season_summer']);
    expect(rulesOf({ country: 'AU' })).toEqual(['season_winter']);
    expect(rulesOf({ country: 'GB', today: '2026-01-10T00:00:00Z' })).toEqual(['season_winter']);
    expect(rulesOf({ country: 'FI' })).toEqual(['season_summer', 'climate_cold']);
    expect(rulesOf({ country: 'TH' })).toEqual(['climate_tropical']);
    expect(personalisedTips({ ...base, species_id: '3', country: 'GB' })[0].description).toContain('electrolytes');
  });
});

describe('care tips result', () => {
  const seeded = [{ id: 'care-beag-1', category: 'Exercise', title: 'Walks', description: 'Long walks.', sources: [] }];
  it('breed-standard first, then personalised; include_seeded and include_sources', () => {
    const all = careTips({ ...base, body_condition_score: 8 }, seeded, { include_seeded: true, include_sources: false });
    expect(all.map((tip) => [tip.id, tip.tip_type])).toEqual([
      ['care-beag-1', 'breed_standard'],
      ['p1-bcs_obese', 'personalised'],
    ]);
    expect(all.every((tip) => !('sources' in tip))).toBe(true);
    const personal = careTips({ ...base, body_condition_score: 8 }, seeded, { include_seeded: false, include_sources: true });
    expect(personal.map((tip) => tip.id)).toEqual(['p1-bcs_obese']);
    expect(personal[0].sources).toEqual([]);
  });
});
