import { describe, expect, it } from 'vitest';
import { animalDetections, labelsFrom, nearestBaseColour, nearestColour, orientationOf, speciesFrom, suggestBreeds } from './analysis.ts';

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

  it('takes the species from the most confident animal, else from the classifier', () => {
    expect(speciesFrom([dog, cat], [])).toBe('1');
    expect(speciesFrom([person], [{ label: 'golden retriever', index: 207, confidence: 0.6 }])).toBe('2');
    expect(speciesFrom([], [{ label: 'sorrel', index: 339, confidence: 0.5 }])).toBe('3');
    expect(speciesFrom([person], [{ label: 'envelope', index: 549, confidence: 0.9 }])).toBeNull();
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
