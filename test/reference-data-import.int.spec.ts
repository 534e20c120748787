import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';
import { importReferenceData } from '../command-api/handlers/reference-data.ts';
import { REFERENCE_DATA_DIR } from '../reference-data/dataset.ts';
import { REFERENCE_IMPORT_STREAM } from '../domain/reference-data/import.ts';
import { breedsProjection } from '../projectors/breeds.ts';
import { factsProjection } from '../projectors/facts.ts';
import { healthTipsProjection } from '../projectors/health-tips.ts';
import { projectToHead } from '../projectors/runner.ts';
import { REFERENCE_COLLECTIONS, type CareTipDoc, type ColourDoc, type FactDoc, type HealthTipDoc } from '../contracts/reference-read-models.ts';
import type { Breed } from '../reference-data/schemas.ts';

/**
 * The import through commands on a real (SQLite) event store, from a copy of the data files that
 * the tests then edit: idempotent (a second run appends nothing), one changed record → one event,
 * a removed record → withdrawn, invalid data → nothing at all.
 */
let dir: string;
let dataDir: string;
let store: EventStore;

const readJson = (name: string) => JSON.parse(readFileSync(join(dataDir, name), 'utf8'));
const writeJson = (name: string, value: unknown) => writeFileSync(join(dataDir, name), `${JSON.stringify(value, null, 2)}\n`);
const eventsAfter = (position: bigint): Promise<RecordedEvent[]> => store.readAll({ after: position, maxCount: 100_000 });

const countOf = (name: string) => (JSON.parse(readFileSync(join(REFERENCE_DATA_DIR, name), 'utf8')) as unknown[]).length;
const expectedRecords = {
  breed: ['breeds/cats.json', 'breeds/dogs-1.json', 'breeds/dogs-2.json', 'breeds/horses.json'].map(countOf).reduce((a, b) => a + b, 0),
  fact: ['facts/cats.json', 'facts/dogs.json', 'facts/horses.json'].map(countOf).reduce((a, b) => a + b, 0),
  healthtip: countOf('health-tips.json'),
  colour: countOf('colours/species.json'),
  category: countOf('categories.json'),
  country: countOf('legislation/countries.json'),
  legislation: countOf('legislation/laws.json'),
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'refimport-'));
  dataDir = join(dir, 'data');
  cpSync(REFERENCE_DATA_DIR, dataDir, { recursive: true, filter: (source) => !source.endsWith('.ts') });
  store = sqliteEventStore(join(dir, 'events.db'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reference data import', () => {
  it('publishes every record once, in its own stream, and records the import', async () => {
    const progress: number[] = [];
    const result = await importReferenceData(store, { dir: dataDir, onProgress: (done) => progress.push(done) });
    expect(result.status).toBe('imported');
    const events = await eventsAfter(0n);
    const byCategory: Record<string, number> = {};
    for (const event of events) {
      if (event.streamName === REFERENCE_IMPORT_STREAM) continue;
      expect(event.type.endsWith('Published')).toBe(true);
      expect(event.revision).toBe(0n);
      const category = event.streamName.slice(0, event.streamName.indexOf('-'));
      byCategory[category] = (byCategory[category] ?? 0) + 1;
    }
    expect(byCategory).toEqual(expectedRecords);
    const total = Object.values(expectedRecords).reduce((a, b) => a + b, 0);
    expect(events).toHaveLength(total + 1);
    expect(events.at(-1)).toMatchObject({ streamName: REFERENCE_IMPORT_STREAM, type: 'ReferenceDataImported', data: { changes: total } });
    expect(progress.at(-1)).toBe(total);
    const [abys] = await store.readStream('breed-abys');
    expect(abys.data).toMatchObject({ id: 'abys', record: { id: 'abys', name: 'Abyssinian' } });
    expect(abys.metadata.actor).toBe('system:reference-data-import');
  });

  it('projects breeds with their colour variants and seeded breed-standard care tips', async () => {
    const breeds = ['breeds/cats.json', 'breeds/dogs-1.json', 'breeds/dogs-2.json', 'breeds/horses.json'].flatMap((name) => readJson(name) as Breed[]);
    const readStore = embeddedReadStore();
    await projectToHead(store, readStore, breedsProjection);
    const careTips = readStore.collection<CareTipDoc>(REFERENCE_COLLECTIONS.careTips);
    expect(await careTips.count()).toBe(breeds.reduce((sum, breed) => sum + breed.care_tips.length, 0));
    const breed = breeds[0];
    expect(await careTips.find({ breed_id: breed.id }, { sort: { seq: 1 } })).toEqual(
      breed.care_tips.map((tip, index) => ({
        _id: `care-${breed.id}-${index + 1}`,
        id: `care-${breed.id}-${index + 1}`,
        breed_id: breed.id,
        species_id: breed.species_id,
        ...tip,
        tip_type: 'breed_standard',
        sources: [],
        seq: index,
      })),
    );
    const colours = readStore.collection<ColourDoc>(REFERENCE_COLLECTIONS.colours);
    expect(await colours.count()).toBe(breeds.reduce((sum, item) => sum + item.colours.length, 0) + expectedRecords.colour);
    await readStore.close();
  });

  it('appends nothing when run again, whether or not the dataset hash short-cuts it', async () => {
    const head = await store.headPosition();
    expect(await importReferenceData(store, { dir: dataDir })).toMatchObject({ status: 'unchanged', appended: 0 });
    expect(await importReferenceData(store, { dir: dataDir, force: true })).toMatchObject({ status: 'imported', appended: 0 });
    expect(await store.headPosition()).toBe(head);
  });

  it('appends exactly one event for one changed fact, and the read model shows the change', async () => {
    const facts = readJson('facts/cats.json');
    facts[4].fact = `${facts[4].fact} (revised)`;
    writeJson('facts/cats.json', facts);
    const head = await store.headPosition();
    const result = await importReferenceData(store, { dir: dataDir });
    expect(result).toMatchObject({ status: 'imported', appended: 1, byType: { FactRevised: 1 } });
    const events = await eventsAfter(head);
    expect(events.map((event) => [event.streamName, event.type])).toEqual([
      [`fact-${facts[4].id}`, 'FactRevised'],
      [REFERENCE_IMPORT_STREAM, 'ReferenceDataImported'],
    ]);
    expect(events[0].data).toMatchObject({ id: facts[4].id, record: { fact: facts[4].fact } });

    const readStore = embeddedReadStore();
    await projectToHead(store, readStore, factsProjection);
    expect((await readStore.collection<FactDoc>(REFERENCE_COLLECTIONS.facts).get(facts[4].id))?.fact).toBe(facts[4].fact);
    await readStore.close();
  });

  it('withdraws a record that left the dataset', async () => {
    const tips = readJson('health-tips.json');
    const removed = tips.pop();
    writeJson('health-tips.json', tips);
    const head = await store.headPosition();
    expect(await importReferenceData(store, { dir: dataDir })).toMatchObject({ status: 'imported', appended: 1, byType: { HealthTipWithdrawn: 1 } });
    expect((await eventsAfter(head)).map((event) => event.type)).toEqual(['HealthTipWithdrawn', 'ReferenceDataImported']);
    const readStore = embeddedReadStore();
    await projectToHead(store, readStore, healthTipsProjection);
    const collection = readStore.collection<HealthTipDoc>(REFERENCE_COLLECTIONS.healthTips);
    expect(await collection.get(removed.id)).toBeNull();
    expect(await collection.count()).toBe(tips.length);
    await readStore.close();
  });

  it('imports nothing at all from invalid data and says why', async () => {
    const breeds = readJson('breeds/horses.json');
    breeds[0].venom_codes = [{ code: 'NOPE', name: 'Nope', is_primary: true }];
    breeds[1].rare = 'sometimes';
    writeJson('breeds/horses.json', breeds);
    const head = await store.headPosition();
    const result = await importReferenceData(store, { dir: dataDir });
    expect(result.status).toBe('invalid');
    expect(result.status === 'invalid' && result.problems.some((problem) => problem.includes('rare'))).toBe(true);
    expect(await store.headPosition()).toBe(head);
  });
});
