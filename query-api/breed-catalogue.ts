import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { Breed } from '../contracts/breeds.ts';
import { breedIn } from '../contracts/reference-read-models.ts';

export { breedIn };
import type { Order } from '../contracts/paging.ts';
import {
  BREEDS_VERSION_ID,
  REFERENCE_COLLECTIONS,
  REFERENCE_PROJECTIONS,
  type BreedDoc,
  type BreedsVersionDoc,
  type TranslatedLanguage,
} from '../contracts/reference-read-models.ts';
import { LANGUAGES, type Language } from '../domain/reference-data/vocabulary.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { drawRandom } from '../http/paging.ts';
import { contentLanguageOf } from './language.ts';

export type CatalogueEntry = {
  doc: BreedDoc;
  /** The Breed resource in every language (name, description, temperament and origin translated where the breed has them, English otherwise; `language` says which). */
  resources: Record<Language, Breed>;
  /** The same, serialised once (UTF-8 JSON): answers are these bytes, lists these joined by commas. */
  json: Record<Language, Buffer>;
  /** Languages the breed has a translation in (English always). */
  translated: ReadonlySet<Language>;
  /** Answers built from this one and kept with it (the breed with its reference image embedded: withDerived). */
  derived: DerivedAnswers;
};

/** Answers derived from a cached one (its breeds with their reference images), kept as long as it is: a few per answer. */
export type DerivedAnswers = LRUCache<string, BreedListAnswer>;
const DERIVED_PER_ANSWER = 2;
const derivedAnswers = (): DerivedAnswers => new LRUCache({ max: DERIVED_PER_ANSWER });

/**
 * The answer derived from `holder` under `key`, built once while `holder` lives (a snapshot lives
 * until the breeds' version moves: a reference image that changes moves it). `build` says whether
 * its answer may be kept: one that could not resolve every image (the images read model behind the
 * breeds one) is built again next time.
 */
export const withDerived = async (
  holder: { derived: DerivedAnswers },
  key: string,
  build: () => Promise<{ answer: BreedListAnswer; keep: boolean }>,
): Promise<BreedListAnswer> => {
  const known = holder.derived.get(key);
  if (known) return known;
  const { answer, keep } = await build();
  if (keep) holder.derived.set(key, answer);
  return answer;
};

/** An answer of these bytes (a derived one). */
export const answerOf = (body: Buffer, total: number, language: string): BreedListAnswer => ({
  body,
  total,
  language,
  etag: weakEtag(body),
  encoded: {},
  references: [],
  derived: derivedAnswers(),
});

export type BreedSelection = {
  species_id?: string;
  breedGroups: string[];
  excludeBreedGroups: string[];
  q?: string;
  venomCode?: string;
  extinct?: boolean;
};

/** How a list asks for its page (order undefined = by name, as ASC). */
export type BreedPaging = { order: Order | undefined; page: number; limit: number; lang: Language };

/**
 * A list answer: the page as JSON bytes, the number of matching breeds, the Content-Language of
 * the page (`de, en` when some breeds on it have no German), its (weak) ETag, and the body
 * compressed, made the first time a client accepts that encoding.
 */
export type BreedListAnswer = {
  body: Buffer;
  total: number;
  language: string;
  etag: string;
  encoded: Partial<Record<BodyEncoding, Buffer>>;
  /** The reference_image_id of each breed on the page, in order. */
  references: (string | null)[];
  derived: DerivedAnswers;
};

export type BodyEncoding = 'br' | 'gzip';

/** A weak validator of a JSON body: the same bytes, whatever content coding they travel in. */
export const weakEtag = (body: Buffer): string => `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/** The body in a content coding, made once per answer (brotli at quality 4, as @fastify/compress uses). */
export const encodedBody = (answer: Pick<BreedListAnswer, 'body' | 'encoded'>, encoding: BodyEncoding): Buffer =>
  (answer.encoded[encoding] ??=
    encoding === 'br'
      ? brotliCompressSync(answer.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_SIZE_HINT]: answer.body.length } })
      : gzipSync(answer.body));

/**
 * List answers kept per snapshot: at most this many bytes (a full page of 1,000 breeds is a few
 * MB) and this many answers — the key is the caller's query (any page number, any `q`), so pages
 * past the end, two bytes each, must not be able to pile up unbounded.
 */
const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;
const ANSWER_CACHE_ENTRIES = 2000;
/** What an answer costs besides its body and key (the entry and answer objects), roughly. */
const ANSWER_OVERHEAD_BYTES = 200;

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const jsonArray = (items: Buffer[]): Buffer => {
  const parts: Buffer[] = [OPEN];
  items.forEach((item, index) => parts.push(...(index === 0 ? [item] : [COMMA, item])));
  parts.push(CLOSE);
  return Buffer.concat(parts);
};

const toEntry = (doc: BreedDoc): CatalogueEntry => {
  const resources = {} as Record<Language, Breed>;
  const json = {} as Record<Language, Buffer>;
  const translated = new Set<Language>(['en']);
  for (const lang of LANGUAGES) {
    const translation = lang === 'en' ? undefined : doc.translations[lang];
    if (translation) translated.add(lang);
    resources[lang] = breedIn(doc, translation, lang);
    json[lang] = Buffer.from(JSON.stringify(resources[lang]));
  }
  return { doc, resources, json, translated, derived: derivedAnswers() };
};

const matching = (entries: CatalogueEntry[], selection: BreedSelection): CatalogueEntry[] => {
  const include = selection.breedGroups.length > 0 ? new Set(selection.breedGroups) : null;
  const exclude = selection.excludeBreedGroups.length > 0 ? new Set(selection.excludeBreedGroups) : null;
  const q = selection.q?.toLowerCase();
  const venom = selection.venomCode?.toUpperCase();
  const result: CatalogueEntry[] = [];
  for (const entry of entries) {
    const doc = entry.doc;
    if (selection.species_id !== undefined && doc.species_id !== selection.species_id) continue;
    if (selection.extinct !== undefined && doc.extinct !== selection.extinct) continue;
    if (include && !include.has(doc.breed_group_lc)) continue;
    if (exclude && exclude.has(doc.breed_group_lc)) continue;
    if (q !== undefined && !doc.name_lc.includes(q)) continue;
    if (venom !== undefined && !doc.venom_code_list.includes(venom)) continue;
    result.push(entry);
  }
  return result;
};

/** The page of `selected` the paging asks for; Content-Language names the languages its breeds are served in. */
const answer = (selected: CatalogueEntry[], paging: BreedPaging): BreedListAnswer => {
  let page: CatalogueEntry[];
  if (paging.order === 'RANDOM') page = drawRandom(selected, paging.limit);
  else {
    const start = paging.page * paging.limit;
    page = paging.order === 'DESC' ? selected.slice().reverse().slice(start, start + paging.limit) : selected.slice(start, start + paging.limit);
  }
  const body = jsonArray(page.map((entry) => entry.json[paging.lang]));
  return {
    body,
    total: selected.length,
    language: contentLanguageOf(
      page.map((entry) => (entry.translated.has(paging.lang) ? paging.lang : 'en')),
      paging.lang,
    ),
    etag: weakEtag(body),
    encoded: {},
    references: page.map((entry) => entry.doc.resource.reference_image_id),
    derived: derivedAnswers(),
  };
};

/** See breedCatalogue: how long a snapshot is served without a checkpoint lookup. */
export const SNAPSHOT_RECHECK_MS = 100;

/**
 * The breeds read model held ready for serving: sorted by name (case-insensitive, then id), with
 * the resource of every language built and serialised, and refreshed whenever the breeds
 * projection's checkpoint moves. Breed lists are the hottest read of the API (GET /breeds); this
 * keeps a request down to a filter over a few hundred entries, a slice and a string join — no
 * sorting, copying or per-request serialisation. A page asked for again (the same filters, order,
 * page, limit and language) is answered with the bytes built the first time, until the snapshot
 * is replaced; random pages are drawn anew each time.
 *
 * Whether the projection moved costs a checkpoint lookup, a round trip on a shared read store. So
 * where the store knows a checkpoint without asking (`knownCheckpoint`: the highest this process
 * has seen) a snapshot is served without a lookup for up to SNAPSHOT_RECHECK_MS after the last
 * one, unless the known checkpoint is already past it. Read-your-writes still holds: the query
 * API's hook waits for the breeds checkpoint to pass the account's last write a breed can depend
 * on (a write on a public image: the breed routes declare `dependsOn: ['public-images']`) before
 * the handler runs, which makes that position known here, so the snapshot is replaced first. Where this
 * process runs the projections (all-in-one) their own checkpoint writes are known at once; a
 * separate query process sees another account's change within SNAPSHOT_RECHECK_MS.
 *
 * The checkpoint moves with every batch of the log the projections read (votes, favourites,
 * uploads …), most of which change no breed. So a moved checkpoint is first compared with the
 * breeds collection's version (BreedsVersionDoc, one lookup by id), and the snapshot is rebuilt
 * only when that moved too; otherwise it is kept, with its built answers, at the new position. A
 * store without a version (none projected yet) rebuilds on every move, as a safe default.
 */
export const breedCatalogue = (readStore: ReadStore, options: { recheckMs?: number; now?: () => number } = {}) => {
  const recheckMs = options.recheckMs ?? SNAPSHOT_RECHECK_MS;
  const now = options.now ?? Date.now;
  type Snapshot = {
    position: bigint | null;
    /** The breeds collection's version the entries were read at (null: the store has none). */
    version: string | null;
    /** When the store last confirmed `position` (a getCheckpoint that answered it). */
    checkedAt: number;
    entries: CatalogueEntry[];
    byId: Map<string, CatalogueEntry>;
    answers: LRUCache<string, BreedListAnswer>;
  };
  const versions = readStore.collection<BreedsVersionDoc>(REFERENCE_COLLECTIONS.breedsVersion);
  let cached: Snapshot | null = null;
  let loading: Promise<Snapshot> | null = null;

  /** The snapshot may be served without asking the store (see above). */
  const stillCurrent = (snapshot: Snapshot): boolean => {
    const known = readStore.knownCheckpoint?.(REFERENCE_PROJECTIONS.breeds);
    if (known === undefined || now() - snapshot.checkedAt >= recheckMs) return false;
    return known === null || (snapshot.position !== null && known <= snapshot.position);
  };

  const load = async (): Promise<Snapshot> => {
    if (cached && stillCurrent(cached)) return cached;
    const checkedAt = now();
    const position = await readStore.getCheckpoint(REFERENCE_PROJECTIONS.breeds);
    if (cached && cached.position === position) {
      cached.checkedAt = Math.max(cached.checkedAt, checkedAt);
      return cached;
    }
    // Read before the documents: a change landing in between makes the next look rebuild again.
    const version = (await versions.get(BREEDS_VERSION_ID))?.position ?? null;
    if (cached && version !== null && cached.version === version) {
      if (position !== null && (cached.position === null || position > cached.position)) cached.position = position;
      cached.checkedAt = Math.max(cached.checkedAt, checkedAt);
      return cached;
    }
    loading ??= (async () => {
      try {
        const docs = await readStore.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).find({}, { sort: { name_lc: 1, _id: 1 } });
        const entries = docs.map(toEntry);
        const snapshot: Snapshot = {
          position,
          version,
          checkedAt,
          entries,
          byId: new Map(entries.map((entry) => [entry.doc.id, entry])),
          answers: new LRUCache({
            max: ANSWER_CACHE_ENTRIES,
            maxSize: ANSWER_CACHE_BYTES,
            // Compressed copies are added later and not counted: they are a fraction of the body.
            sizeCalculation: (answer, key) => answer.body.length + key.length * 2 + ANSWER_OVERHEAD_BYTES,
          }),
        };
        cached = snapshot;
        return snapshot;
      } finally {
        loading = null;
      }
    })();
    return loading;
  };

  return {
    async get(id: string): Promise<CatalogueEntry | undefined> {
      return (await load()).byId.get(id);
    },
    /** One page of the breeds matching the selection, as the list operations answer it. */
    async page(selection: BreedSelection, paging: BreedPaging): Promise<BreedListAnswer> {
      const snapshot = await load();
      if (paging.order === 'RANDOM') return answer(matching(snapshot.entries, selection), paging);
      const key = JSON.stringify([selection, paging]);
      let cached = snapshot.answers.get(key);
      if (!cached) {
        cached = answer(matching(snapshot.entries, selection), paging);
        snapshot.answers.set(key, cached);
      }
      return cached;
    },
  };
};

export type BreedCatalogue = ReturnType<typeof breedCatalogue>;
