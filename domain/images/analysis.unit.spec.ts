import { describe, expect, it } from 'vitest';
import {
  animalDetections,
  CAT_MASS_FLOOR,
  HORSE_TO_DOG_MASS,
  labelsFrom,
  massVerdict,
  nearestBaseColour,
  nearestColour,
  orientationOf,
  relabelAnimal,
  speciesFrom,
  suggestBreeds,
  WHOLE_IMAGE_SPECIES_MASS,
} from './analysis.ts';

const cat = { label: 'cat', confidence: 0.92, box: { left: 0.1, top: 0.2, width: 0.3, height: 0.4 } };
const dog = { label: 'dog', confidence: 0.6, box: { left: 0.5, top: 0.1, width: 0.4, height: 0.5 } };
const person = { label: 'person', confidence: 0.8, box: { left: 0, top: 0, width: 0.2, height: 0.9 } };

describe('image analysis mapping', () => {
  it('labels detections with boxes and parents, classifications without, parents as labels of their own', () => {
    const labels = labelsFrom([cat, person], [{ label: 'tabby, tabby cat', index: 281, confidence: 0.55 }]);
    const catLabel = labels.find((label) => label.Name === 'Cat')!;
    expect(catLabel.Confidence).toBe(92);
    expect(catLabel.Instances).toEqual([{ BoundingBox: { Width: 0.3, Height: 0.4, Left: 0.1, Top: 0.2 }, Confidence: 92 }]);
    expect(catLabel.Parents).toEqual([{ Name: 'Pet' }, { Name: 'Mammal' }, { Name: 'Animal' }]);
    const tabby = labels.find((label) => label.Name === 'Tabby')!;
    expect(tabby.Instances).toEqual([]);
    expect(tabby.Parents[0]).toEqual({ Name: 'Cat' });
    expect(labels.find((label) => label.Name === 'Animal')?.Confidence).toBe(92);
    expect(labels.find((label) => label.Name === 'Person')?.Parents).toEqual([]);
    expect(labels.map((label) => label.Confidence)).toEqual([...labels.map((label) => label.Confidence)].sort((a, b) => b - a));
  });

  it('keeps only animals above the confidence for auto-crop', () => {
    expect(animalDetections([cat, dog, person], 0.5)).toEqual([cat, dog]);
    expect(animalDetections([cat, dog, person], 0.7)).toEqual([cat]);
  });

  describe('species from all the evidence', () => {
    const nothing = { cat: 0, dog: 0 };
    const horse = { label: 'horse', confidence: 0.7, box: { left: 0.2, top: 0.2, width: 0.5, height: 0.6 } };

    it('reads the classifier mass: more cat than dog is a cat; a dog needs more dog and almost no cat', () => {
      expect(CAT_MASS_FLOOR).toBe(0.01);
      expect(massVerdict({ cat: 0.3, dog: 0.1 })).toBe('cat');
      expect(massVerdict({ cat: 0.003, dog: 0.88 })).toBe('dog');
      // a Sphynx: 'Mexican hairless' first, yet 2–36 % on the cat classes — not decisive either way
      expect(massVerdict({ cat: 0.2, dog: 0.63 })).toBeNull();
      expect(massVerdict({ cat: 0.0099, dog: 0.02 })).toBe('dog');
      expect(massVerdict(nothing)).toBeNull();
    });

    it('relabels a cat box whose crop the classifier sees as a dog (the dog beside a bicycle)', () => {
      const catOnTheDog = { label: 'cat', confidence: 0.43, box: { left: 0.3, top: 0.3, width: 0.4, height: 0.5 } };
      const { species, animals } = speciesFrom([{ detection: catOnTheDog, crop: { cat: 0.003, dog: 0.88 } }], { cat: 0.01, dog: 0.6 });
      expect(species).toBe('2');
      expect(animals).toEqual([{ ...catOnTheDog, label: 'dog' }]);
    });

    it('relabels a dog box whose crop is a cat, and keeps a box its crop agrees with', () => {
      expect(relabelAnimal({ detection: dog, crop: { cat: 0.26, dog: 0.13 } }).label).toBe('cat');
      expect(relabelAnimal({ detection: cat, crop: { cat: 0.2, dog: 0.1 } })).toBe(cat);
      expect(relabelAnimal({ detection: dog, crop: { cat: 0, dog: 0.9 } })).toBe(dog);
      expect(speciesFrom([{ detection: dog, crop: { cat: 0.6, dog: 0.1 } }], nothing).species).toBe('1');
    });

    it('keeps the detector label when the crop was not classified or is not decisive', () => {
      expect(relabelAnimal({ detection: cat, crop: null })).toBe(cat);
      expect(relabelAnimal({ detection: cat, crop: nothing })).toBe(cat);
      expect(relabelAnimal({ detection: dog, crop: { cat: 0.2, dog: 0.2 } })).toBe(dog);
      // a hairless cat: more dog than cat mass, but far too much cat mass for a dog
      expect(relabelAnimal({ detection: cat, crop: { cat: 0.17, dog: 0.71 } })).toBe(cat);
    });

    it('takes horses from the detector, relabelled only when the crop is clearly a dog', () => {
      expect(relabelAnimal({ detection: horse, crop: null })).toBe(horse);
      expect(relabelAnimal({ detection: horse, crop: { cat: 0, dog: 0.6 } })).toBe(horse);
      expect(relabelAnimal({ detection: horse, crop: { cat: 0.9, dog: 0 } })).toBe(horse);
      expect(relabelAnimal({ detection: horse, crop: { cat: 0.02, dog: 0.9 } })).toBe(horse);
      expect(relabelAnimal({ detection: horse, crop: { cat: 0.0005, dog: HORSE_TO_DOG_MASS } }).label).toBe('dog');
      expect(speciesFrom([{ detection: horse, crop: { cat: 0, dog: 0.3 } }], { cat: 0, dog: 0.4 }).species).toBe('3');
      // no horse box: the classifier never makes a horse (its 'sorrel' class carries no species mass here)
      expect(speciesFrom([], nothing).species).toBeNull();
    });

    it('takes the species of the most confident animal after relabelling', () => {
      // cat 0.92 relabelled dog, dog 0.6 stays dog; a less confident horse does not win
      const { species, animals } = speciesFrom(
        [{ detection: horse, crop: null }, { detection: cat, crop: { cat: 0.001, dog: 0.7 } }, { detection: dog, crop: { cat: 0, dog: 0.9 } }],
        nothing,
      );
      expect(species).toBe('2');
      expect(animals.map((a) => [a.label, a.confidence])).toEqual([['dog', 0.92], ['horse', 0.7], ['dog', 0.6]]);
      expect(speciesFrom([{ detection: dog, crop: null }, { detection: cat, crop: null }], nothing).species).toBe('1');
    });

    it('ignores boxes of other classes', () => {
      expect(speciesFrom([{ detection: person, crop: { cat: 0.9, dog: 0 } }], nothing)).toEqual({ species: null, animals: [] });
    });

    it('with no animal box, the whole image when cat and dog together hold half the mass, else a species holding half alone, else none', () => {
      expect(WHOLE_IMAGE_SPECIES_MASS).toBe(0.5);
      expect(speciesFrom([], { cat: 0.002, dog: 0.5 }).species).toBe('2');
      expect(speciesFrom([], { cat: 0.55, dog: 0.3 }).species).toBe('1');
      // together over half, cat ahead: a cat even though neither holds half alone
      expect(speciesFrom([], { cat: 0.35, dog: 0.3 }).species).toBe('1');
      // not decisive by the mass verdict, but the dog classes hold over half
      expect(speciesFrom([], { cat: 0.05, dog: 0.6 }).species).toBe('2');
      expect(speciesFrom([], { cat: 0.1, dog: 0.35 }).species).toBeNull();
      expect(speciesFrom([], { cat: 0.005, dog: 0.49 }).species).toBeNull();
      expect(speciesFrom([], nothing)).toEqual({ species: null, animals: [] });
    });
  });

  it('maps ImageNet breed classes to our breeds of the same species', () => {
    const breeds = [
      { id: 'siam', name: 'Siamese', species_id: '1' },
      { id: 'emau', name: 'Egyptian Mau', species_id: '1' },
      { id: 'pers', name: 'Persian', species_id: '1' },
      { id: 'golden-retriever', name: 'Golden Retriever', species_id: '2' },
      { id: 'siamese-dog', name: 'Siamese', species_id: '2' },
    ];
    const suggested = suggestBreeds(
      [
        { label: 'Egyptian cat', index: 285, confidence: 0.3 },
        { label: 'Siamese cat, Siamese', index: 284, confidence: 0.5 },
        { label: 'golden retriever', index: 207, confidence: 0.15 },
        { label: 'Persian cat', index: 283, confidence: 0.01 },
        { label: 'tabby, tabby cat', index: 281, confidence: 0.4 },
      ],
      breeds,
    );
    expect(suggested).toEqual(['siam', 'emau', 'golden-retriever']);
  });

  it('maps a dominant colour to the species vocabulary', () => {
    const candidates = [
      { id: 'cat-blk', code: 'BLK', base_colour: 'black' },
      { id: 'cat-wht', code: 'WHT', base_colour: 'white' },
      { id: 'cat-red', code: 'RED', base_colour: 'red' },
      { id: 'cat-tabc', code: 'TABC', base_colour: 'any' },
    ];
    expect(nearestColour([10, 12, 8], candidates)?.id).toBe('cat-blk');
    expect(nearestColour([250, 250, 250], candidates)?.id).toBe('cat-wht');
    expect(nearestColour([230, 120, 30], candidates)?.id).toBe('cat-red');
    expect(nearestColour([0, 0, 0], [])).toBeNull();
    expect(nearestBaseColour([128, 128, 130])).toBe('grey');
  });

  it('names the orientation', () => {
    expect(orientationOf(400, 300)).toBe('landscape');
    expect(orientationOf(300, 400)).toBe('portrait');
    expect(orientationOf(500, 505)).toBe('square');
  });
});
