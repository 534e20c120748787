import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGENET_BREEDS, imagenetBreed, imagenetSpecies } from './imagenet-species.ts';

const breedsDir = join(import.meta.dirname, '../../reference-data/breeds');
const ourBreeds = new Map<string, { name: string; species_id: string }>();
for (const file of readdirSync(breedsDir).filter((f) => f.endsWith('.json'))) {
  for (const b of JSON.parse(readFileSync(join(breedsDir, file), 'utf8'))) ourBreeds.set(b.id, b);
}

describe('ImageNet classes to species and breeds', () => {
  it('maps the domestic cat, dog and horse classes to species and nothing else', () => {
    expect([281, 282, 283, 284, 285].map(imagenetSpecies)).toEqual(['1', '1', '1', '1', '1']);
    expect(imagenetSpecies(151)).toBe('2');
    expect(imagenetSpecies(268)).toBe('2');
    expect(imagenetSpecies(339)).toBe('3');
    // wolves/foxes (269-280), big cats (286-293), espresso: no species
    for (const i of [150, 269, 280, 286, 293, 967]) expect(imagenetSpecies(i)).toBeNull();
  });

  it('covers every dog and cat class, each breed id existing in reference-data with the same species', () => {
    expect(IMAGENET_BREEDS.size).toBe(118 + 5);
    for (const b of IMAGENET_BREEDS.values()) {
      expect(b.species).toBe(imagenetSpecies(b.index));
      if (b.breedId === null) continue;
      const ours = ourBreeds.get(b.breedId);
      expect(ours, `${b.breedName} -> ${b.breedId}`).toBeDefined();
      expect(ours!.species_id, `${b.breedName} -> ${b.breedId}`).toBe(b.species);
    }
  });

  it('names well-known breeds by our ids', () => {
    expect(imagenetBreed(284)).toMatchObject({ breedName: 'Siamese cat', breedId: 'siam', species: '1' });
    expect(imagenetBreed(207)).toMatchObject({ breedName: 'golden retriever', breedId: 'golden-retriever', species: '2' });
    expect(imagenetBreed(281)).toMatchObject({ breedName: 'tabby', breedId: null, species: '1' });
    expect(imagenetBreed(268)?.breedId).toBe('xoloitzcuintli');
    expect(imagenetBreed(339)).toBeNull();
    expect(imagenetBreed(967)).toBeNull();
  });
});
