import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Breed } from '../contracts/breeds.ts';
import { loadDataset } from '../reference-data/dataset.ts';
import { toBreedResource } from './breed-resource.ts';

/** Breed reads are served pre-serialised, so the projected shape itself must match the documented schema. */
describe('the Breed resource built by the projection', () => {
  it('matches the Breed schema exactly (no undocumented field) for every breed', async () => {
    const { dataset } = await loadDataset();
    const exact = Type.Object(Breed.properties, { additionalProperties: false });
    const problems = (dataset?.breeds ?? []).flatMap((breed) =>
      // the query side adds the served language to the stored resource (query-api/breed-catalogue.ts)
      [...Value.Errors(exact, { ...toBreedResource(breed), language: 'en' })].map((error) => `${breed.id}${error.path}: ${error.message}`),
    );
    expect(dataset?.breeds.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('holds only the breed’s own species in expansions', async () => {
    const { dataset } = await loadDataset();
    for (const breed of dataset?.breeds ?? []) {
      expect(Object.keys(toBreedResource(breed).expansions)).toEqual([{ '1': 'cat', '2': 'dog', '3': 'horse' }[breed.species_id]]);
    }
  });
});
