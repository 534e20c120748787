import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { breedMatcher } from './breeds.ts';
import { normaliseLicence } from './licence.ts';
import { folderEntries, manifestEntries, ManifestError, resolveEntry, type PhotoEntry } from './sources.ts';

const breeds = breedMatcher([
  { id: 'abys', name: 'Abyssinian', species_id: '1', alt_names: 'Aby' },
  { id: 'mcoo', name: 'Maine Coon', species_id: '1', alt_names: '' },
  { id: 'beagle', name: 'Beagle', species_id: '2' },
  { id: 'german-shorthaired-pointer', name: 'German Shorthaired Pointer', species_id: '2', alt_names: 'GSP, Deutsch Kurzhaar' },
  // the same name for a cat and a dog breed
  { id: 'cat-hairless', name: 'Hairless', species_id: '1' },
  { id: 'dog-hairless', name: 'Hairless', species_id: '2' },
]);

const dir = mkdtempSync(join(tmpdir(), 'import-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const collect = async (entries: AsyncGenerator<PhotoEntry>) => {
  const list: PhotoEntry[] = [];
  for await (const entry of entries) list.push(entry);
  return list;
};

describe('licence names to SPDX ids', () => {
  it.each([
    ['CC-BY-SA-4.0', 'CC-BY-SA-4.0'],
    ['cc-by-sa-4.0', 'CC-BY-SA-4.0'],
    ['CC BY-SA 4.0', 'CC-BY-SA-4.0'],
    ['Creative Commons Attribution-ShareAlike 4.0 International', 'CC-BY-SA-4.0'],
    ['Creative Commons Attribution Share Alike 4.0 International', 'CC-BY-SA-4.0'],
    ['CC BY 2.0', 'CC-BY-2.0'],
    ['cc by-nc-nd 4.0', 'CC-BY-NC-ND-4.0'],
    ['Creative Commons Attribution-NonCommercial-NoDerivatives 4.0 International', 'CC-BY-NC-ND-4.0'],
    ['CC BY-NC-SA 2.0 UK', 'CC-BY-NC-SA-2.0-UK'],
    ['CC0', 'CC0-1.0'],
    ['CC0 1.0 Universal', 'CC0-1.0'],
    ['Public Domain Mark 1.0', 'CC-PDM-1.0'],
    ['MIT', 'MIT'],
  ])('%s → %s', (text, id) => expect(normaliseLicence(text)).toBe(id));
  it.each(['CC BY-SA', 'Creative Commons', 'Unsplash License', 'all rights reserved', ''])('%s names no licence: null, not a guess', (text) => expect(normaliseLicence(text)).toBeNull());
});

describe('breeds by id, name or alternative name', () => {
  it.each([
    ['abys', 'abys'],
    ['ABYS', 'abys'],
    ['Abyssinian', 'abys'],
    ['aby', 'abys'],
    ['Maine_Coon', 'mcoo'],
    ['maine-coon', 'mcoo'],
    ['german shorthaired pointer', 'german-shorthaired-pointer'],
    ['Deutsch Kurzhaar', 'german-shorthaired-pointer'],
  ])('%s is %s', (text, id) => expect(breeds.match(text)).toMatchObject({ id }));
  it('an unknown name matches nothing', () => expect(breeds.match('Unicorn')).toEqual({ problem: 'unknown', candidates: [] }));
  it('a name of several breeds is ambiguous unless the species chooses', () => {
    expect(breeds.match('Hairless')).toEqual({ problem: 'ambiguous', candidates: ['cat-hairless', 'dog-hairless'] });
    expect(breeds.match('Hairless', '2')).toEqual({ id: 'dog-hairless', species_id: '2' });
  });
  it('a breed of another species than the one given does not match', () => expect(breeds.match('beagle', '1')).toMatchObject({ problem: 'unknown' }));
});

describe('manifests', () => {
  it('reads a CSV manifest (header, quotes, BOM, CRLF, columns in any order)', async () => {
    const path = join(dir, 'm.csv');
    writeFileSync(path, '\uFEFFlicense,file,breed_ids,title,public\r\n"CC BY-SA 4.0",a/cat 1.jpg,"abys, Maine Coon","A ""quoted"" title, with comma",false\r\nCC0,b.png,,,\r\n');
    const [first, second] = await collect(manifestEntries(path));
    expect(first).toMatchObject({ file: 'a/cat 1.jpg', breeds: ['abys', 'Maine Coon'], license: 'CC BY-SA 4.0', title: 'A "quoted" title, with comma', public: 'false', origin: `${path}:2` });
    expect(second).toMatchObject({ file: 'b.png', breeds: [], license: 'CC0', title: null, public: null });
  });
  it('reads a JSON-lines manifest (breed_ids as a list or a string)', async () => {
    const path = join(dir, 'm.jsonl');
    writeFileSync(path, '{"file":"x.jpg","breed_ids":["abys"],"public":true,"author":"Ann"}\n\n{"file":"y.jpg","breed_ids":"beagle;mcoo","species_id":"2"}\n');
    const entries = await collect(manifestEntries(path));
    expect(entries.map((entry) => [entry.file, entry.breeds, entry.public, entry.author, entry.species_id])).toEqual([
      ['x.jpg', ['abys'], true, 'Ann', null],
      ['y.jpg', ['beagle', 'mcoo'], null, null, '2'],
    ]);
  });
  it('refuses a manifest with an unknown column or without `file`, or a line that is not JSON', async () => {
    writeFileSync(join(dir, 'bad.csv'), 'file,licence\nx.jpg,CC0\n');
    await expect(collect(manifestEntries(join(dir, 'bad.csv')))).rejects.toThrow(/unknown column\(s\) licence/);
    writeFileSync(join(dir, 'nofile.csv'), 'breed_ids\nabys\n');
    await expect(collect(manifestEntries(join(dir, 'nofile.csv')))).rejects.toThrow(ManifestError);
    writeFileSync(join(dir, 'bad.jsonl'), '{"file":"x.jpg"}\nnot json\n');
    await expect(collect(manifestEntries(join(dir, 'bad.jsonl')))).rejects.toThrow(/bad\.jsonl:2: not JSON/);
  });
  it('the folder layout names the breed by the first folder; other files and top-level photos have none', async () => {
    const folder = join(dir, 'layout');
    mkdirSync(join(folder, 'Maine_Coon', 'sub'), { recursive: true });
    mkdirSync(join(folder, 'Unicorn'), { recursive: true });
    for (const file of ['Maine_Coon/a.JPG', 'Maine_Coon/sub/b.webp', 'Maine_Coon/notes.txt', 'Unicorn/c.png', 'top.gif']) writeFileSync(join(folder, file), 'x');
    const entries = (await collect(folderEntries(folder))).map((entry) => [entry.file, entry.breeds, entry.fromFolder]).sort();
    expect(entries).toEqual([
      ['Maine_Coon/a.JPG', ['Maine_Coon'], true],
      ['Maine_Coon/sub/b.webp', ['Maine_Coon'], true],
      ['Unicorn/c.png', ['Unicorn'], true],
      ['top.gif', [], false],
    ]);
  });
});

describe('an entry resolved to a photo, or a reason to skip it', () => {
  const entry = (fields: Partial<PhotoEntry>): PhotoEntry => ({
    file: 'a.jpg',
    origin: 'm.csv:2',
    breeds: [],
    fromFolder: false,
    species_id: null,
    sub_id: null,
    public: null,
    license: null,
    author: null,
    source_url: null,
    title: null,
    ...fields,
  });
  it('a licensed photo is public by default, with its attribution and breed ids', () => {
    const resolved = resolveEntry(entry({ breeds: ['Abyssinian', 'aby'], license: 'CC BY-SA 4.0', source_url: 'https://example.org/a', author: 'Ann' }), '/data', breeds);
    expect(resolved).toEqual({
      photo: {
        file: 'a.jpg',
        path: '/data/a.jpg',
        origin: 'm.csv:2',
        breed_ids: ['abys'],
        species_id: null,
        sub_id: null,
        public: true,
        attribution: { license: 'CC-BY-SA-4.0', author: 'Ann', source_url: 'https://example.org/a', title: null },
      },
    });
  });
  it('a photo without a licence is never public; one with public=false is not either', () => {
    expect(resolveEntry(entry({ public: 'true' }), '/data', breeds)).toMatchObject({ photo: { public: false, attribution: null } });
    expect(resolveEntry(entry({ public: 'no', license: 'CC0' }), '/data', breeds)).toMatchObject({ photo: { public: false, attribution: { license: 'CC0-1.0' } } });
  });
  it.each([
    [{ breeds: ['Unicorn'] }, 'unknown_breed'],
    [{ breeds: ['Hairless'] }, 'unknown_breed'],
    [{ license: 'CC BY-SA' }, 'unknown_licence'],
    [{ file: '../outside.jpg' }, 'invalid_row'],
    [{ file: '/etc/passwd' }, 'invalid_row'],
    [{ file: '' }, 'invalid_row'],
    [{ public: 'maybe' }, 'invalid_row'],
    [{ source_url: 'javascript:alert(1)' }, 'invalid_row'],
    [{ species_id: 'cat' }, 'invalid_row'],
    [{ title: 'x'.repeat(501) }, 'invalid_row'],
  ] as [Partial<PhotoEntry>, string][])('%j is skipped: %s', (fields, reason) => expect(resolveEntry(entry(fields), '/data', breeds)).toMatchObject({ skip: reason }));
  it('a folder that matches no breed is named in the skip', () =>
    expect(resolveEntry(entry({ file: 'Unicorn/c.png', breeds: ['Unicorn'], fromFolder: true }), '/data', breeds)).toMatchObject({ skip: 'unknown_breed', folder: 'Unicorn' }));
});
