import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATEGORY_CLASS_MASS, CATEGORY_EVIDENCE, CATEGORY_OBJECT_CONFIDENCE, categoriesSeen, SPECIES_CATEGORY_EVIDENCE, YOUNG_MONTHS, type CategoryRef, type SeenEvidence } from './categories.ts';

/** The reference categories as shipped (ids and names per species). */
const CATEGORIES = JSON.parse(readFileSync(new URL('../../reference-data/categories.json', import.meta.url), 'utf8')) as CategoryRef[];
const idOf = (name: string, species: string): string => CATEGORIES.find((c) => c.name === name && c.species_id === species)!.id;

const nothing: SeenEvidence = { species: '1', ageMonths: null, views: [[{ index: 285, confidence: 0.9 }]], objects: [{ label: 'cat', confidence: 0.9 }] };

describe('categories from what is seen', () => {
  it('assigns nothing to a photo where only the animal is seen', () => {
    expect(categoriesSeen(nothing, CATEGORIES)).toEqual([]);
  });

  it('hats, sunglasses, boxes, ties, sinks, clothes, space, windows from the classifier at the class-mass threshold', () => {
    const cases: [string, number][] = [
      ['hats', 515],
      ['sunglasses', 837],
      ['boxes', 478],
      ['ties', 906],
      ['sinks', 896],
      ['clothes', 841],
      ['space', 812],
      ['windows', 904],
      ['snow', 802],
    ];
    for (const [name, index] of cases) {
      const at = { ...nothing, views: [[{ index: 285, confidence: 0.6 }, { index, confidence: CATEGORY_CLASS_MASS }]] };
      expect(categoriesSeen(at, CATEGORIES), name).toEqual([idOf(name, '1')]);
      const below = { ...nothing, views: [[{ index: 285, confidence: 0.6 }, { index, confidence: CATEGORY_CLASS_MASS - 0.01 }]] };
      expect(categoriesSeen(below, CATEGORIES), name).toEqual([]);
    }
  });

  it('sums the classes of one category within a view, never across views', () => {
    const half = CATEGORY_CLASS_MASS / 2 + 0.001;
    const oneView = { ...nothing, views: [[{ index: 836, confidence: half }, { index: 837, confidence: half }]] };
    expect(categoriesSeen(oneView, CATEGORIES)).toEqual([idOf('sunglasses', '1')]);
    const twoViews = { ...nothing, views: [[{ index: 836, confidence: half }], [{ index: 837, confidence: half }]] };
    expect(categoriesSeen(twoViews, CATEGORIES)).toEqual([]);
  });

  it('takes evidence from a crop as well as from the whole image', () => {
    const crop = { ...nothing, views: [[{ index: 285, confidence: 0.9 }], [{ index: 515, confidence: 0.3 }]] };
    expect(categoriesSeen(crop, CATEGORIES)).toEqual([idOf('hats', '1')]);
  });

  it('ties and sinks from the detector at the object confidence', () => {
    const objects = [
      { label: 'tie', confidence: CATEGORY_OBJECT_CONFIDENCE },
      { label: 'sink', confidence: CATEGORY_OBJECT_CONFIDENCE - 0.01 },
    ];
    expect(categoriesSeen({ ...nothing, objects }, CATEGORIES)).toEqual([idOf('ties', '1')]);
  });

  it('gives the category of the image’s species: snow and beach for a dog, playing from a ball', () => {
    const dog: SeenEvidence = {
      species: '2',
      ageMonths: null,
      views: [[{ index: 207, confidence: 0.5 }, { index: 978, confidence: 0.2 }, { index: 852, confidence: 0.2 }]],
      objects: [{ label: 'skis', confidence: 0.7 }],
    };
    expect(categoriesSeen(dog, CATEGORIES)).toEqual([idOf('beach', '2'), idOf('snow', '2'), idOf('playing', '2')].sort((a, b) => Number(a) - Number(b)));
    // the same evidence on a cat: cats have snow and playing, no beach
    expect(categoriesSeen({ ...dog, species: '1' }, CATEGORIES)).toEqual([idOf('playing', '1'), idOf('snow', '1')].sort((a, b) => Number(a) - Number(b)));
  });

  it('dogs and horses have costumes where cats have clothes', () => {
    const sweater = { ...nothing, views: [[{ index: 841, confidence: 0.4 }]] };
    expect(categoriesSeen({ ...sweater, species: '2' }, CATEGORIES)).toEqual([idOf('costumes', '2')]);
    expect(categoriesSeen({ ...sweater, species: '3' }, CATEGORIES)).toEqual([idOf('costumes', '3')]);
    expect(categoriesSeen({ ...sweater, species: '1' }, CATEGORIES)).toEqual([idOf('clothes', '1')]);
  });

  it('working means a dogsled for a dog and a cart or plough for a horse', () => {
    const sled = { ...nothing, views: [[{ index: 537, confidence: 0.4 }]] };
    const cart = { ...nothing, views: [[{ index: 603, confidence: 0.4 }]] };
    expect(categoriesSeen({ ...sled, species: '2' }, CATEGORIES)).toContain(idOf('working', '2'));
    expect(categoriesSeen({ ...cart, species: '2' }, CATEGORIES)).toEqual([]);
    expect(categoriesSeen({ ...cart, species: '3' }, CATEGORIES)).toEqual([idOf('working', '3')]);
    expect(categoriesSeen({ ...sled, species: '3' }, CATEGORIES)).not.toContain(idOf('working', '3'));
  });

  it('kittens, puppies and foals from the age the uploader gave, never without one', () => {
    expect(categoriesSeen({ ...nothing, ageMonths: 3 }, CATEGORIES)).toEqual([idOf('kittens', '1')]);
    expect(categoriesSeen({ ...nothing, ageMonths: YOUNG_MONTHS - 1, species: '2' }, CATEGORIES)).toEqual([idOf('puppies', '2')]);
    expect(categoriesSeen({ ...nothing, ageMonths: 0, species: '3' }, CATEGORIES)).toEqual([idOf('foals', '3')]);
    expect(categoriesSeen({ ...nothing, ageMonths: YOUNG_MONTHS }, CATEGORIES)).toEqual([]);
    expect(categoriesSeen({ ...nothing, ageMonths: null }, CATEGORIES)).toEqual([]);
  });

  it('assigns nothing without a species, and only categories that exist', () => {
    const everything: SeenEvidence = { species: null, ageMonths: 1, views: [[{ index: 515, confidence: 0.9 }]], objects: [{ label: 'tie', confidence: 0.9 }] };
    expect(categoriesSeen(everything, CATEGORIES)).toEqual([]);
    const withdrawn = CATEGORIES.filter((c) => c.name !== 'hats');
    expect(categoriesSeen({ ...everything, species: '1', ageMonths: null, objects: [] }, withdrawn)).toEqual([]);
  });

  it('never assigns a category the models cannot see', () => {
    const unseeable = CATEGORIES.filter((c) => !(SPECIES_CATEGORY_EVIDENCE[c.species_id]?.[c.name] ?? CATEGORY_EVIDENCE[c.name]));
    expect(unseeable.map((c) => c.name)).toEqual(expect.arrayContaining(['sleeping', 'grooming', 'lap', 'agility', 'dressage', 'racing']));
    // every class and every object anywhere at full confidence, a newborn: still none of these
    const all: SeenEvidence = {
      species: '1',
      ageMonths: 0,
      views: [Array.from({ length: 1000 }, (_, index) => ({ index, confidence: 1 }))],
      objects: ['tie', 'sink', 'bed', 'couch', 'sports ball', 'skis', 'surfboard', 'frisbee'].map((label) => ({ label, confidence: 1 })),
    };
    for (const species of ['1', '2', '3']) {
      const got = categoriesSeen({ ...all, species }, CATEGORIES);
      for (const category of unseeable.filter((c) => c.species_id === species)) expect(got).not.toContain(category.id);
    }
  });

});
