import { describe, expect, it } from 'vitest';
import { estimateAge, estimateWeight, growthShare, lifeStage, sizeClassification, type BreedData } from './growth.ts';

const spaniel: BreedData = { id: 'aws', name: 'American Water Spaniel', species_id: '2', weight_kg: '11 - 20', life_span: '10 - 14' };
const chihuahua: BreedData = { id: 'chi', name: 'Chihuahua', species_id: '2', weight_kg: '1.5 - 3', life_span: '12 - 20' };
const mastiff: BreedData = { id: 'mas', name: 'Mastiff', species_id: '2', weight_kg: '54 - 100', life_span: '6 - 10' };
const cat: BreedData = { id: 'abys', name: 'Abyssinian', species_id: '1', weight_kg: '3 - 5', life_span: '14 - 15' };

describe('size and growth', () => {
  it('classifies by adult weight', () => {
    expect(sizeClassification('2', 2.25)).toBe('toy');
    expect(sizeClassification('2', 15.5)).toBe('medium');
    expect(sizeClassification('2', 77)).toBe('giant');
    expect(sizeClassification('1', 4)).toBe('medium');
    expect(sizeClassification('3', 500)).toBe('light');
  });

  it('growth curve: birth share at 0, 98 % at maturity, monotone, 1 after', () => {
    expect(growthShare('2', 'medium', 0)).toBeCloseTo(0.02, 6);
    expect(growthShare('2', 'medium', 12)).toBeCloseTo(0.98, 6);
    expect(growthShare('2', 'giant', 20)).toBeCloseTo(0.98, 6);
    expect(growthShare('2', 'giant', 12)).toBeLessThan(growthShare('2', 'toy', 12));
    expect(growthShare('2', 'medium', 6)).toBeGreaterThan(growthShare('2', 'medium', 3));
  });

  it('life stages', () => {
    expect(lifeStage('2', 6, 'medium')).toBe('puppy');
    expect(lifeStage('2', 80, 'giant')).toBe('senior');
    expect(lifeStage('2', 80, 'small')).toBe('adult');
    expect(lifeStage('1', 140)).toBe('senior');
  });
});

describe('weight estimate', () => {
  it('an adult of ideal condition weighs the middle of its breed range', () => {
    expect(estimateWeight({ breed: spaniel, ageMonths: 48, bcs: 5 })).toMatchObject({ ok: true, weight_kg: 15.5, size_classification: 'medium' });
  });

  it('BCS moves the estimate by 10 % per point', () => {
    expect(estimateWeight({ breed: spaniel, ageMonths: 48, bcs: 7 })).toMatchObject({ weight_kg: 18.6 });
    expect(estimateWeight({ breed: spaniel, ageMonths: 48, bcs: 3 })).toMatchObject({ weight_kg: 12.4 });
  });

  it('a young animal is on the growth curve; sizes follow the breed', () => {
    const puppy = estimateWeight({ breed: spaniel, ageMonths: 4, bcs: null });
    expect(puppy.ok && puppy.weight_kg).toBeGreaterThan(5);
    expect(puppy.ok && puppy.weight_kg).toBeLessThan(15.5);
    expect(estimateWeight({ breed: chihuahua, ageMonths: null, bcs: null })).toMatchObject({ size_classification: 'toy', weight_kg: 2.3 });
    const mastiffAdult = estimateWeight({ breed: mastiff, ageMonths: 30, bcs: null });
    expect(mastiffAdult).toMatchObject({ size_classification: 'giant' });
    expect(mastiffAdult.ok && Math.abs(mastiffAdult.weight_kg - 77)).toBeLessThan(0.5);
    expect(estimateWeight({ breed: cat, ageMonths: 24, bcs: 5 })).toMatchObject({ size_classification: 'medium', weight_kg: 4 });
  });

  it('no breed: no estimate, with the reason', () => {
    expect(estimateWeight({ breed: null, ageMonths: 10, bcs: 5 })).toMatchObject({ ok: false });
  });
});

describe('age estimate', () => {
  it('exact from the record', () => {
    expect(estimateAge({ species: '2', recordedAgeMonths: 30, photoAgeMonths: [], breed: spaniel })).toMatchObject({
      ok: true,
      age_months: 30,
      plausible_range: '30–30 months',
      life_stage: 'adult',
    });
  });

  it('from photo ages, with their spread as the range', () => {
    expect(estimateAge({ species: '1', recordedAgeMonths: null, photoAgeMonths: [20, 18, 22], breed: cat })).toMatchObject({
      ok: true,
      age_months: 20,
      plausible_range: '18–22 months',
      life_stage: 'young_adult',
    });
  });

  it('without evidence it does not guess', () => {
    expect(estimateAge({ species: '2', recordedAgeMonths: null, photoAgeMonths: [], breed: spaniel })).toMatchObject({ ok: false });
  });
});
