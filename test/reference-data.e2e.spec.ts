import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { REFERENCE_DATA_DIR } from '../reference-data/dataset.ts';
import type { Breed, Category, Country, Fact, HealthTip, Law, SpeciesColour } from '../reference-data/schemas.ts';

/**
 * The reference-data reads through a real listening server, against expectations computed here
 * straight from the data files (not through the query code).
 */
const read = <T>(name: string): T[] => JSON.parse(readFileSync(join(REFERENCE_DATA_DIR, name), 'utf8')) as T[];
const breeds = ['breeds/cats.json', 'breeds/dogs-1.json', 'breeds/dogs-2.json', 'breeds/horses.json'].flatMap((name) => read<Breed>(name));
const facts = ['facts/cats.json', 'facts/dogs.json', 'facts/horses.json'].flatMap((name) => read<Fact>(name));
const tips = read<HealthTip>('health-tips.json');
const speciesColours = read<SpeciesColour>('colours/species.json');
const categories = read<Category>('categories.json');
const countries = read<Country>('legislation/countries.json');
const laws = read<Law>('legislation/laws.json');

const byName = (a: Breed, b: Breed) => {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};
const ids = (items: { id: string | number }[]) => items.map((item) => item.id);
const sortedIds = (items: { id: string }[]) => items.map((item) => item.id).sort();

let service: TestService;
let key: string;
const get = (path: string, options: { key?: string | null } = {}) => service.request('GET', path, { key: options.key === undefined ? key : options.key });

beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount({ features: [] })).api_key;
});
afterAll(async () => {
  await service.dispose();
});

describe('breeds', () => {
  it('lists living breeds by name, all of them by default (limit 1000), with paging headers', async () => {
    const expected = breeds.filter((breed) => !breed.extinct).sort(byName);
    const response = await get('/v1/breeds');
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual(ids(expected));
    expect(response.headers.get('pagination-count')).toBe(String(expected.length));
    expect(response.headers.get('pagination-limit')).toBe('1000');
    expect(response.headers.get('pagination-page')).toBe('0');
    expect(response.headers.get('content-language')).toBe('en');

    const page = await get('/v1/breeds?limit=10&page=2');
    expect(ids(page.body)).toEqual(ids(expected.slice(20, 30)));
    const desc = await get('/v1/breeds?limit=5&order=desc');
    expect(ids(desc.body)).toEqual(ids([...expected].reverse().slice(0, 5)));
    const random = await get('/v1/breeds?limit=7&order=RAND');
    expect(random.body).toHaveLength(7);
    expect(new Set(ids(random.body)).size).toBe(7);
    for (const id of ids(random.body)) expect(ids(expected)).toContain(id);
  });

  it('filters by extinction, species, breed groups (case-insensitive), name and any venom code', async () => {
    const cases: [string, Breed[]][] = [
      ['extinct=true', breeds.filter((breed) => breed.extinct)],
      ['extinct=0&species_id=3', breeds.filter((breed) => !breed.extinct && breed.species_id === '3')],
      ['breed_groups=terrier,HOUND', breeds.filter((breed) => !breed.extinct && ['Terrier', 'Hound'].includes(breed.breed_group))],
      [
        'species_id=2&exclude_breed_groups=Sporting,%20toy',
        breeds.filter((breed) => !breed.extinct && breed.species_id === '2' && !['Sporting', 'Toy'].includes(breed.breed_group)),
      ],
      [
        'breed_groups=pony,draft&exclude_breed_groups=draft',
        breeds.filter((breed) => !breed.extinct && breed.breed_group === 'Pony'),
      ],
      ['q=SHEP', breeds.filter((breed) => !breed.extinct && breed.name.toLowerCase().includes('shep'))],
      ['q=a&species_id=1', breeds.filter((breed) => !breed.extinct && breed.species_id === '1' && breed.name.toLowerCase().includes('a'))],
      ['venom_code=sorrel', breeds.filter((breed) => !breed.extinct && breed.venom_codes.some((venom) => venom.code === 'SORREL'))],
    ];
    for (const [query, expected] of cases) {
      expect(expected.length, query).toBeGreaterThan(0);
      const response = await get(`/v1/breeds?${query}`);
      expect(response.status, query).toBe(200);
      expect(ids(response.body), query).toEqual(ids(expected.sort(byName)));
      expect(response.headers.get('pagination-count'), query).toBe(String(expected.length));
    }
    // a non-primary code matches too
    const secondary = breeds.find((breed) => !breed.extinct && breed.venom_codes.some((venom) => !venom.is_primary)) as Breed;
    const code = secondary.venom_codes.find((venom) => !venom.is_primary)?.code as string;
    expect(ids((await get(`/v1/breeds?venom_code=${encodeURIComponent(code)}`)).body)).toContain(secondary.id);
  });

  it('searches with style A paging (default limit 10), extinct breeds included unless asked', async () => {
    const matching = breeds.filter((breed) => breed.name.toLowerCase().includes('e')).sort(byName);
    const first = await get('/v1/breeds/search?q=E');
    expect(ids(first.body)).toEqual(ids(matching.slice(0, 10)));
    expect(first.headers.get('pagination-count')).toBe(String(matching.length));
    expect(first.headers.get('pagination-limit')).toBe('10');
    const extinct = breeds.filter((breed) => breed.extinct).sort(byName);
    const all = await get('/v1/breeds/search?limit=100');
    expect(all.headers.get('pagination-count')).toBe(String(breeds.length));
    const onlyExtinct = await get('/v1/breeds/search?extinct=1');
    expect(ids(onlyExtinct.body)).toEqual(ids(extinct.slice(0, 10)));
    const living = await get('/v1/breeds/search?extinct=false&limit=100&page=1');
    expect(ids(living.body)).toEqual(ids(breeds.filter((breed) => !breed.extinct).sort(byName).slice(100, 200)));
  });

  it('answers one breed with flat fields and the expansions of its species', async () => {
    const cat = breeds.find((breed) => breed.id === 'abys') as Breed & Record<string, unknown>;
    const response = await get('/v1/breeds/abys');
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      id: 'abys',
      name: cat.name,
      species_id: '1',
      weight: { imperial: cat.weight_pounds, metric: cat.weight_kg },
      reference_image_id: null,
      adaptability: cat.adaptability,
      indoor: cat.indoor,
      venom_codes: cat.venom_codes,
      origin: cat.origin,
      life_span: cat.life_span,
    });
    expect(body.expansions.cat).toMatchObject({ adaptability: cat.adaptability, rare: cat.rare, hypoallergenic: cat.hypoallergenic, assoc_url: cat.assoc_url });
    expect(Object.keys(body.expansions)).toEqual(['cat']);
    for (const hidden of ['colours', 'care_tips', 'translations']) expect(body).not.toHaveProperty(hidden);

    const dog = breeds.find((breed) => breed.species_id === '2') as Breed & Record<string, unknown>;
    const dogBody = (await get(`/v1/breeds/${dog.id}`)).body;
    expect(dogBody.expansions.dog).toMatchObject({
      model: expect.any(String),
      language: 'en',
      male_height_cm: dog.male_height_cm,
      barking_score: dog.barking_score,
      barking_characteristics: dog.barking_characteristics,
    });
    expect(dogBody.barking_score).toBe(dog.barking_score);
    const horse = breeds.find((breed) => breed.species_id === '3') as Breed & Record<string, unknown>;
    const horseBody = (await get(`/v1/breeds/${horse.id}`)).body;
    expect(horseBody.expansions).toEqual({ horse: { height_hands: horse.height_hands, common_uses: horse.common_uses, notable_traits: horse.notable_traits } });
  });

  it('lists a breed’s own colour variants, then those of its whole species', async () => {
    const breed = breeds.find((item) => item.id === 'abys') as Breed;
    const response = await get('/v1/breeds/abys/colours');
    expect(response.status).toBe(200);
    const own = breed.colours.map((colour) => `abys-${colour.code.toLowerCase()}`);
    const species = speciesColours.filter((colour) => colour.species_id === '1');
    expect(ids(response.body).slice(0, own.length)).toEqual(own);
    expect(ids(response.body).slice(own.length).sort()).toEqual(sortedIds(species));
    expect(response.body[0]).toEqual({ id: own[0], species_id: '1', breed_id: 'abys', ...breed.colours[0] });
    expect(response.headers.get('pagination-count')).toBe(String(own.length + species.length));
  });

  it('translates name and description, falls back to English, and says which it served', async () => {
    const cat = breeds.find((breed) => breed.id === 'abys') as Breed;
    for (const lang of ['es', 'fr', 'de'] as const) {
      const response = await get(`/v1/breeds/abys?lang=${lang}`);
      expect(response.body.name).toBe(cat.translations[lang].name);
      expect(response.body.description).toBe(cat.translations[lang].description);
      expect(response.body.history).toBe(cat.history);
      expect(response.headers.get('content-language')).toBe(lang);
    }
    const english = await get('/v1/breeds/abys?lang=en');
    expect(english.body.name).toBe(cat.name);
    expect(english.headers.get('content-language')).toBe('en');
    const list = await get('/v1/breeds?lang=fr&limit=3');
    expect(list.headers.get('content-language')).toBe('fr');
    expect(list.body.map((breed: { name: string }) => breed.name)).toEqual(
      breeds.filter((breed) => !breed.extinct).sort(byName).slice(0, 3).map((breed) => breed.translations.fr.name),
    );
  });

  it('answers unknown breeds with 404 and malformed parameters with 400, one message per problem', async () => {
    expectEnvelope(await get('/v1/breeds/no-such-breed'), 404, 'not_found');
    expectEnvelope(await get('/v1/breeds/no-such-breed/colours'), 404, 'not_found');
    expectEnvelope(await get('/v1/breeds/not%20valid!'), 400, 'validation_failed');
    const bad = expectEnvelope(await get('/v1/breeds?limit=1001&page=-1&extinct=maybe&lang=x'), 400, 'validation_failed');
    expect(bad.message).toHaveLength(4);
    const search = expectEnvelope(await get(`/v1/breeds/search?q=${'x'.repeat(31)}&limit=101`), 400, 'validation_failed');
    expect(search.message).toHaveLength(2);
    expectEnvelope(await get('/v1/breeds/search?q='), 400, 'validation_failed');
    expectEnvelope(await get('/v1/breeds', { key: null }), 403, 'missing_api_key');
  });
});

describe('facts', () => {
  const factIds = (list: Fact[]) => list.map((fact) => fact.id).sort();

  it('lists facts (style B) by id with every filter, sources only on request', async () => {
    const dogFacts = facts.filter((fact) => fact.species_id === 2);
    const response = await get('/v1/facts?species_id=2&limit=100&offset=20');
    expect(ids(response.body)).toEqual(factIds(dogFacts).slice(20, 120));
    expect(response.headers.get('pagination-count')).toBe(String(dogFacts.length));
    expect(response.headers.get('pagination-limit')).toBe('100');
    expect(response.body[0]).not.toHaveProperty('sources');

    const history = facts.filter((fact) => fact.category === 'History');
    expect(ids((await get('/v1/facts?category=history&limit=100')).body)).toEqual(factIds(history).slice(0, 100));
    const breedFact = facts.find((fact) => fact.breed_id !== null) as Fact;
    const ofBreed = facts.filter((fact) => fact.breed_id === breedFact.breed_id);
    const filtered = await get(`/v1/facts?breed_id=${breedFact.breed_id}&include_sources=true`);
    expect(ids(filtered.body)).toEqual(factIds(ofBreed).slice(0, 10));
    expect(filtered.body[0].sources).toEqual(facts.find((fact) => fact.id === filtered.body[0].id)?.sources);
    expect((await get('/v1/facts')).body).toHaveLength(10);
  });

  it('answers facts of a breed (also under /breeds/{id}/facts) and one fact by id', async () => {
    const breedFact = facts.find((fact) => fact.breed_id !== null) as Fact;
    const expected = factIds(facts.filter((fact) => fact.breed_id === breedFact.breed_id));
    const direct = await get(`/v1/facts/breed/${breedFact.breed_id}?limit=100`);
    expect(ids(direct.body)).toEqual(expected);
    const alias = await get(`/v1/breeds/${breedFact.breed_id}/facts?limit=100`);
    expect(alias.body).toEqual(direct.body);
    const one = await get(`/v1/facts/${breedFact.id}?include_sources=1`);
    expect(one.body).toEqual({
      id: breedFact.id,
      title: breedFact.title,
      fact: breedFact.fact,
      slug: breedFact.slug,
      category: breedFact.category,
      species_id: breedFact.species_id,
      breed_id: breedFact.breed_id,
      language: 'en',
      sources: breedFact.sources,
    });
    expectEnvelope(await get('/v1/facts/fact-cat-999999'), 404, 'not_found');
    expectEnvelope(await get('/v1/facts/breed/no-such-breed'), 404, 'not_found');
    expectEnvelope(await get('/v1/breeds/no-such-breed/facts'), 404, 'not_found');
  });

  it('draws random facts from the filtered set and answers 404 on an empty set', async () => {
    const random = await get('/v1/facts/random');
    expect(random.status).toBe(200);
    expect(ids(facts)).toContain(random.body.id);
    const horse = await get('/v1/facts/species/3/random');
    expect(horse.body.species_id).toBe(3);
    const breedFact = facts.find((fact) => fact.breed_id !== null) as Fact;
    const ofBreed = await get(`/v1/facts/breed/${breedFact.breed_id}/random`);
    expect(ofBreed.body.breed_id).toBe(breedFact.breed_id);
    const category = await get('/v1/facts/random?category=RECORDS&species_id=1');
    expect(category.body).toMatchObject({ category: 'Records', species_id: 1 });

    const withoutFacts = breeds.find((breed) => !facts.some((fact) => fact.breed_id === breed.id)) as Breed;
    expectEnvelope(await get(`/v1/facts/breed/${withoutFacts.id}/random`), 404, 'not_found');
    expect((await get(`/v1/facts/breed/${withoutFacts.id}`)).body).toEqual([]);
    expectEnvelope(await get('/v1/facts/species/9/random'), 404, 'not_found');
    expectEnvelope(await get('/v1/facts/random?category=nothing-like-this'), 404, 'not_found');
    expectEnvelope(await get('/v1/facts/breed/no-such-breed/random'), 404, 'not_found');
    expectEnvelope(await get('/v1/facts/species/cat/random'), 400, 'validation_failed');
  });

  it('serves every fact in the requested language', async () => {
    // Every fact is authored in all four languages (the import refuses one that is not).
    const fact = facts.find((item) => item.species_id === 3) as Fact;
    for (const lang of ['es', 'fr', 'de'] as const) {
      const one = await get(`/v1/facts/${fact.id}?lang=${lang}`);
      expect(one.body).toMatchObject({ id: fact.id, title: fact.translations[lang].title, fact: fact.translations[lang].fact });
      expect(one.headers.get('content-language')).toBe(lang);
    }
    const english = await get(`/v1/facts/${fact.id}`);
    expect(english.body).toMatchObject({ title: fact.title, fact: fact.fact });
    expect(english.headers.get('content-language')).toBe('en');

    const catFacts = facts.filter((item) => item.species_id === 1).sort((a, b) => (a.id < b.id ? -1 : 1));
    const page = await get('/v1/facts?species_id=1&lang=de&limit=5&offset=100');
    expect(page.headers.get('content-language')).toBe('de');
    expect(page.body.map((item: Fact) => item.title)).toEqual(catFacts.slice(100, 105).map((item) => item.translations.de.title));
    // a language we do not have is English; only a malformed tag is refused
    expect((await get(`/v1/facts/${fact.id}?lang=it`)).headers.get('content-language')).toBe('en');
    expect((await get(`/v1/facts/${fact.id}?lang=de-DE`)).headers.get('content-language')).toBe('de');
    expectEnvelope(await get('/v1/facts?lang=i'), 400, 'validation_failed');
  });

  it('refuses malformed parameters with one message per problem', async () => {
    const response = expectEnvelope(await get('/v1/facts?limit=0&offset=-1&species_id=dog&include_sources=maybe'), 400, 'validation_failed');
    expect(response.message).toHaveLength(4);
    expect(response.message.join(' ')).toContain('limit');
    expect(response.message.join(' ')).toContain('offset');
  });
});

describe('health tips', () => {
  it('lists tips with filters (style B), by breed and by id, translated on request', async () => {
    const cats = tips.filter((tip) => tip.species_id === 1).map((tip) => tip.id).sort();
    const list = await get('/v1/health-tips?species_id=1&limit=100');
    expect(ids(list.body)).toEqual(cats.slice(0, 100));
    expect(list.headers.get('pagination-count')).toBe(String(cats.length));
    expect(list.body[0]).not.toHaveProperty('sources');

    const breedTip = tips.find((tip) => tip.breed_id !== null) as HealthTip;
    const expected = tips.filter((tip) => tip.breed_id === breedTip.breed_id).map((tip) => tip.id).sort();
    expect(ids((await get(`/v1/health-tips?breed_id=${breedTip.breed_id}`)).body)).toEqual(expected);
    expect(ids((await get(`/v1/health-tips/breed/${breedTip.breed_id}`)).body)).toEqual(expected);

    const one = await get(`/v1/health-tips/${breedTip.id}?lang=fr&include_sources=true`);
    expect(one.body).toEqual({
      id: breedTip.id,
      title: breedTip.translations.fr.title,
      category: breedTip.category,
      description: breedTip.translations.fr.description,
      species_id: breedTip.species_id,
      breed_id: breedTip.breed_id,
      language: 'fr',
      sources: breedTip.sources,
    });
    expect(one.headers.get('content-language')).toBe('fr');
    expectEnvelope(await get('/v1/health-tips/tip-999999'), 404, 'not_found');
    expectEnvelope(await get('/v1/health-tips/breed/no-such-breed'), 404, 'not_found');
    const bad = expectEnvelope(await get('/v1/health-tips?limit=500&offset=x'), 400, 'validation_failed');
    expect(bad.message).toHaveLength(2);
  });
});

describe('categories', () => {
  it('lists all categories by numeric id by default, filters by species and pages style A', async () => {
    const all = [...categories].sort((a, b) => Number(a.id) - Number(b.id));
    const response = await get('/v1/categories');
    expect(response.body).toEqual(all);
    expect(response.headers.get('pagination-count')).toBe(String(all.length));
    const dogs = all.filter((category) => category.species_id === '2');
    expect((await get('/v1/categories?species_id=2')).body).toEqual(dogs);
    expect((await get('/v1/categories?limit=3&page=1')).body).toEqual(all.slice(3, 6));
    expect((await get('/v1/categories?limit=2&order=DESC')).body).toEqual([...all].reverse().slice(0, 2));
    expectEnvelope(await get('/v1/categories?limit=101'), 400, 'validation_failed');
  });
});

describe('breed legislation', () => {
  const byCountryName = (a: Country, b: Country) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

  it('lists the countries, or those with laws about cats or dogs', async () => {
    const all = await get('/v1/breeds/bans/countries');
    expect(all.body).toEqual([...countries].sort(byCountryName));
    const withCatLaws = new Set(laws.filter((law) => law.animal_type === 'cat').map((law) => law.country_iso_code));
    const expected = countries.filter((country) => withCatLaws.has(country.iso_code)).sort(byCountryName);
    expect((await get('/v1/breeds/bans/countries?animal_type=cat')).body).toEqual(expected);
    expect((await get('/v1/breeds/bans/countries?species_id=1')).body).toEqual(expected);
    expect((await get('/v1/breeds/bans/countries?species_id=3')).body).toEqual([]);
    expectEnvelope(await get('/v1/breeds/bans/countries?animal_type=horse'), 400, 'validation_failed');
  });

  it('answers a country’s laws: national ones, and those of its jurisdictions grouped', async () => {
    const national = countries.find((country) => laws.some((law) => law.country_iso_code === country.iso_code && law.jurisdiction === null)) as Country;
    const lawsOf = (iso: string) => laws.filter((law) => law.country_iso_code === iso).sort((a, b) => a.id - b.id);
    const response = await get(`/v1/breeds/bans/country?country=${national.iso_code.toLowerCase()}&limit=100`);
    expect(response.status).toBe(200);
    expect(response.body.country).toEqual(national);
    expect(ids(response.body.legislation)).toEqual(ids(lawsOf(national.iso_code).filter((law) => law.jurisdiction === null)));
    expect(response.headers.get('pagination-count')).toBe(String(lawsOf(national.iso_code).length));
    expect(response.body.legislation[0]).toEqual(lawsOf(national.iso_code).find((law) => law.jurisdiction === null));

    const regional = countries.find(
      (country) => lawsOf(country.iso_code).length > 0 && lawsOf(country.iso_code).every((law) => law.jurisdiction !== null),
    ) as Country;
    const regionalLaws = lawsOf(regional.iso_code);
    const regionalResponse = await get(`/v1/breeds/bans/country?country=${regional.iso_code}&limit=100`);
    expect(regionalResponse.body.legislation).toEqual([]);
    const grouped = regionalResponse.body.jurisdictions as { name: string; type: string; legislation: Law[] }[];
    expect(grouped.flatMap((group) => ids(group.legislation)).sort((a, b) => Number(a) - Number(b))).toEqual(ids(regionalLaws));
    for (const group of grouped) for (const law of group.legislation) expect(law.jurisdiction).toEqual({ name: group.name, type: group.type });

    const someJurisdiction = regionalLaws[0].jurisdiction as { name: string };
    const one = await get(`/v1/breeds/bans/country?country=${regional.iso_code}&jurisdiction=${encodeURIComponent(someJurisdiction.name.toUpperCase())}`);
    expect(one.body.jurisdictions.map((group: { name: string }) => group.name)).toEqual([someJurisdiction.name]);
  });

  it('filters and pages a country’s laws', async () => {
    const iso = [...new Set(laws.map((law) => law.country_iso_code))].sort(
      (a, b) => laws.filter((law) => law.country_iso_code === b).length - laws.filter((law) => law.country_iso_code === a).length,
    )[0];
    const all = laws.filter((law) => law.country_iso_code === iso).sort((a, b) => a.id - b.id);
    const page = await get(`/v1/breeds/bans/country?country=${iso}&limit=1&page=1`);
    const pageIds = [...page.body.legislation, ...page.body.jurisdictions.flatMap((group: { legislation: Law[] }) => group.legislation)].map((law) => law.id);
    expect(pageIds).toEqual([all[1].id]);
    expect(page.headers.get('pagination-count')).toBe(String(all.length));
    for (const [param, value] of [
      ['legislation_type', all[0].legislation_type],
      ['approach', all[0].approach],
    ] as const) {
      const response = await get(`/v1/breeds/bans/country?country=${iso}&${param}=${value}&limit=100`);
      const expected = all.filter((law) => law[param] === value);
      expect(response.headers.get('pagination-count'), param).toBe(String(expected.length));
    }
    expectEnvelope(await get('/v1/breeds/bans/country?country=ZZ'), 404, 'not_found');
    const missing = expectEnvelope(await get('/v1/breeds/bans/country'), 400, 'validation_failed');
    expect(missing.message).toEqual(['query.country is required']);
    const bad = expectEnvelope(await get('/v1/breeds/bans/country?country=GBR&approach=forbid&legislation_type=x'), 400, 'validation_failed');
    expect(bad.message).toHaveLength(3);
  });

  it('lists every country and jurisdiction where a breed is banned, restricted or needs a permit', async () => {
    const breedId = 'american-pit-bull-terrier';
    const expected = laws
      .filter((law) => law.status === 'in_force')
      .flatMap((law) =>
        law.banned_breeds
          .filter((banned) => banned.breed_id === breedId)
          .map((banned) => ({
            country_iso_code: law.country_iso_code,
            country_name: countries.find((country) => country.iso_code === law.country_iso_code)?.name,
            jurisdiction_name: law.jurisdiction?.name ?? null,
            ban_type: banned.ban_type,
            legislation_id: law.id,
            legislation_name: law.legislation_name,
            conditions: banned.conditions,
          })),
      );
    expect(expected.length).toBeGreaterThan(0);
    const response = await get(`/v1/breeds/${breedId}/legislation`);
    expect(response.status).toBe(200);
    const key = (item: { legislation_id: number; ban_type: string }) => `${item.legislation_id}/${item.ban_type}`;
    expect(response.body.map(key).sort()).toEqual(expected.map(key).sort());
    for (const item of expected) expect(response.body).toContainEqual(expect.objectContaining(item));
    expect(response.headers.get('pagination-count')).toBe(String(expected.length));
    expect((await get(`/v1/breeds/${breedId}/legislation?species_id=1`)).body).toEqual([]);
    const catBreed = laws.find((law) => law.animal_type === 'cat' && law.status === 'in_force' && law.banned_breeds.length > 0)?.banned_breeds[0].breed_id;
    if (catBreed) {
      const catItems = (await get(`/v1/breeds/${catBreed}/legislation`)).body;
      expect(catItems.length).toBe(
        laws.filter((law) => law.status === 'in_force').flatMap((law) => law.banned_breeds.filter((banned) => banned.breed_id === catBreed)).length,
      );
    }
    const unregulated = breeds.find((breed) => !laws.some((law) => law.banned_breeds.some((banned) => banned.breed_id === breed.id))) as Breed;
    expect((await get(`/v1/breeds/${unregulated.id}/legislation`)).body).toEqual([]);
    expectEnvelope(await get('/v1/breeds/no-such-breed/legislation'), 404, 'not_found');
  });
});
