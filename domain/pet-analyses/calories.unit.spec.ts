import { describe, expect, it } from 'vitest';
import { breedIdealWeightKg, calorieNeeds, lifeStageFor, parseRange, restingEnergyRequirement } from './calories.ts';

describe('calorie needs', () => {
  it('RER is 70 × kg^0.75 (known values: 1 kg → 70, 16 kg → 560, 10 kg → 393.6)', () => {
    expect(restingEnergyRequirement(1)).toBeCloseTo(70, 6);
    expect(restingEnergyRequirement(16)).toBeCloseTo(560, 6); // 16^0.75 = 8
    expect(restingEnergyRequirement(10)).toBeCloseTo(393.64, 2);
    expect(() => restingEnergyRequirement(0)).toThrow(RangeError);
    expect(() => restingEnergyRequirement(-3)).toThrow(RangeError);
  });

  it('DER multiplies RER by the species life-stage factor', () => {
    expect(calorieNeeds(16, 'dog', 'adult')).toMatchObject({ rer_kcal_per_day: 560, factor: 1.6, der_kcal_per_day: 896 });
    expect(calorieNeeds(16, 'dog', 'puppy')).toMatchObject({ factor: 3, der_kcal_per_day: 1680 });
    expect(calorieNeeds(16, 'dog', null)).toMatchObject({ life_stage: 'adult', der_kcal_per_day: 896 });
    // 81 kg: 81^0.75 = 27 → RER 1890
    expect(calorieNeeds(81, 'dog', 'weight_loss')).toMatchObject({ rer_kcal_per_day: 1890, der_kcal_per_day: 1890 });
    expect(calorieNeeds(1, 'cat', 'adult')).toMatchObject({ rer_kcal_per_day: 70, factor: 1.2, der_kcal_per_day: 84 });
    expect(calorieNeeds(1, 'cat', 'kitten')).toMatchObject({ der_kcal_per_day: 175 });
  });

  it('refuses a life stage the species does not have', () => {
    expect(() => calorieNeeds(4, 'cat', 'puppy')).toThrow(/not offered for cats/);
    expect(() => calorieNeeds(10, 'dog', 'kitten')).toThrow(/not offered for dogs/);
    expect(() => calorieNeeds(500, 'horse', 'senior')).toThrow(/horses/);
  });

  it('horses use the NRC maintenance need per kg, not RER', () => {
    expect(calorieNeeds(500, 'horse', null)).toMatchObject({ life_stage: 'maintenance', rer_kcal_per_day: null, der_kcal_per_day: 16650 });
  });

  it('an unknown species gives RER only', () => {
    expect(calorieNeeds(16, null, null)).toMatchObject({ rer_kcal_per_day: 560, factor: null, der_kcal_per_day: null });
  });

  it('life stage from age', () => {
    expect(lifeStageFor('dog', 2)).toBe('puppy');
    expect(lifeStageFor('dog', 8)).toBe('junior');
    expect(lifeStageFor('dog', 40)).toBe('adult');
    expect(lifeStageFor('dog', 90)).toBe('senior');
    expect(lifeStageFor('cat', 8)).toBe('kitten');
    expect(lifeStageFor('cat', 100)).toBe('adult');
    expect(lifeStageFor('cat', 140)).toBe('senior');
    expect(lifeStageFor('dog', null)).toBe('adult');
  });

  it('breed ranges', () => {
    expect(parseRange('11 - 20')).toEqual({ low: 11, high: 20 });
    expect(parseRange('3.5 - 7')).toEqual({ low: 3.5, high: 7 });
    expect(parseRange('')).toBeNull();
    expect(breedIdealWeightKg('11 - 20')).toBe(15.5);
    expect(breedIdealWeightKg('nothing')).toBeNull();
  });
});
