import { exactSearch, MetricKind } from 'usearch';
import { Collections, type ImageDoc, type ImageVectorDoc } from '../contracts/read-models.ts';
import { embeddingInt8 } from '../domain/images/embedding.ts';
import { rankSimilar, type SimilarImage } from '../domain/images/similar.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/** The projection that keeps image_vectors (its checkpoint says how far the collection is). */
const VECTORS_PROJECTION = 'breed-centroids';
/** Documents read per page when the index is built or brought up to date. */
const PAGE = 1_000;
/**
 * Each partition is asked for this many more than wanted, and the union is ranked again exactly
 * (domain/images/similar.ts): usearch's float32 distances can order near-equal ones differently.
 */
const MARGIN = 16;
const PUBLIC = 'public';

/** One visibility scope (public, or one account's images that are not public), species and model: a matrix of int8 rows. */
type Partition = { key: string; scope: string; species: string; model: string; dims: number; rows: Int8Array; ids: string[] };
type Entry = { partition: Partition; row: number; changed: number };

export type SimilarScope = { accountId: string; model: string; species?: string; exclude: string };
export type Nearest = {
  ranked: SimilarImage[];
  /** Every candidate in the scope was considered: asking for more finds nothing more. */
  complete: boolean;
};

/**
 * The similar-images index of the query process: every labelled image's int8 embedding from the
 * image_vectors read model, resident, in one matrix per visibility scope (public, or an account's
 * images that are not public), species and model, searched exactly with usearch's `exactSearch`
 * (SIMD cosine; no recall loss). A query searches the public partitions and the caller's own, so
 * another account's private images are never candidates.
 *
 * Built at start by reading the collection in pages; kept current by reading, before each query,
 * the documents whose `changed_position` is past the projection's checkpoint it last saw (labels,
 * breeds, approvals: a document moves partition when it is made public). The query API's
 * read-your-writes wait covers this projection, so a caller's own writes are in before its query.
 * Deletions leave no document to read: the route re-checks every answer against the images read
 * model, and `forget` drops an image whose documents are both gone.
 */
export const similarIndex = (readStore: ReadStore) => {
  const vectors = () => readStore.collection<ImageVectorDoc>(Collections.imageVectors);
  const entries = new Map<string, Entry>();
  const partitions = new Map<string, Partition>();
  const byScope = new Map<string, Set<Partition>>();
  /** The projection's checkpoint the index reflects at least (undefined: not built). */
  let seen: bigint | null | undefined;
  let syncing: Promise<void> | null = null;

  const partitionOf = (scope: string, species: string, model: string, dims: number): Partition => {
    const key = JSON.stringify([scope, species, model, dims]);
    let partition = partitions.get(key);
    if (!partition) {
      partition = { key, scope, species, model, dims, rows: new Int8Array(0), ids: [] };
      partitions.set(key, partition);
      const set = byScope.get(scope) ?? new Set();
      set.add(partition);
      byScope.set(scope, set);
    }
    return partition;
  };

  const remove = (id: string): void => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    const { partition, row } = entry;
    const last = partition.ids.length - 1;
    if (row !== last) {
      // the last row fills the gap
      partition.rows.copyWithin(row * partition.dims, last * partition.dims, (last + 1) * partition.dims);
      const moved = partition.ids[last];
      partition.ids[row] = moved;
      entries.get(moved)!.row = row;
    }
    partition.ids.pop();
    if (partition.ids.length === 0) {
      partitions.delete(partition.key);
      byScope.get(partition.scope)?.delete(partition);
    } else if (partition.ids.length * 4 < partition.rows.length / partition.dims) {
      partition.rows = partition.rows.slice(0, partition.ids.length * 2 * partition.dims);
    }
  };

  const apply = (doc: ImageVectorDoc): void => {
    const changed = doc.changed_position ?? -1;
    const held = entries.get(doc._id);
    if (held && held.changed > changed) return;
    remove(doc._id);
    if (!doc.embedding || doc.labelled_position === null) return;
    let vector: Int8Array;
    try {
      vector = embeddingInt8(doc.embedding);
    } catch {
      return; // a malformed vector is no candidate (and fails no query)
    }
    const partition = partitionOf(doc.public ? PUBLIC : doc.account_id, doc.species_id ?? '', doc.embedding.model, vector.length);
    const row = partition.ids.length;
    if ((row + 1) * partition.dims > partition.rows.length) {
      // most partitions are one account's few private images: start small, grow by half
      const grown = new Int8Array(Math.max(4, Math.ceil((row + 1) * 1.5)) * partition.dims);
      grown.set(partition.rows.subarray(0, row * partition.dims));
      partition.rows = grown;
    }
    partition.rows.set(vector, row * partition.dims);
    partition.ids.push(doc._id);
    entries.set(doc._id, { partition, row, changed });
  };

  /** Reads every document (the first time) or those changed since the last look, page by page. */
  const catchUp = async (): Promise<void> => {
    const position = await readStore.getCheckpoint(VECTORS_PROJECTION);
    if (seen !== undefined && position === seen) return;
    if (seen === undefined) {
      for (let after = ''; ; ) {
        const page = await vectors().find({ _id: { $gt: after } }, { sort: { _id: 1 }, limit: PAGE });
        for (const doc of page) apply(doc);
        if (page.length < PAGE) break;
        after = page[page.length - 1]._id;
      }
      // built: no room is left over for growth
      for (const partition of partitions.values()) partition.rows = partition.rows.slice(0, partition.ids.length * partition.dims);
    } else {
      for (let after = seen === null ? -1 : Number(seen); ; ) {
        const page = await vectors().find({ changed_position: { $gt: after } }, { sort: { changed_position: 1, _id: 1 }, limit: PAGE });
        for (const doc of page) apply(doc);
        if (page.length < PAGE) break;
        after = page[page.length - 1].changed_position!;
      }
    }
    // read before the documents: what lands in between is read again next time (apply is idempotent)
    seen = position;
  };

  const sync = async (): Promise<void> => {
    // one at a time; a failed one is retried by this one
    while (syncing) await syncing.catch(() => undefined);
    syncing = catchUp().finally(() => {
      syncing = null;
    });
    return syncing;
  };

  /**
   * The `limit` nearest the query vector among the scope's candidates (the public partitions
   * and the caller's own, of the model and species), nearest first, exactly ranked.
   */
  const nearest = (query: Int8Array, scope: SimilarScope, limit: number): Nearest => {
    const candidates: { id: string; vector: Int8Array }[] = [];
    let complete = true;
    // usearch reads a typed array from the start of its buffer, whatever its byteOffset (a Buffer's view has one)
    const own = query.slice();
    for (const owner of [PUBLIC, scope.accountId]) {
      for (const partition of byScope.get(owner) ?? []) {
        if (partition.model !== scope.model || partition.dims !== query.length || (scope.species !== undefined && partition.species !== scope.species)) continue;
        const size = partition.ids.length;
        const wanted = limit + MARGIN + 1;
        if (size > wanted) complete = false;
        const found = exactSearch(partition.rows.subarray(0, size * partition.dims), own, partition.dims, Math.min(wanted, size), MetricKind.Cos, 1);
        for (const key of found.keys as BigUint64Array) {
          const row = Number(key);
          candidates.push({ id: partition.ids[row], vector: partition.rows.subarray(row * partition.dims, (row + 1) * partition.dims) });
        }
      }
    }
    const others = candidates.filter((c) => c.id !== scope.exclude);
    return { ranked: rankSimilar(query, others, limit), complete: complete && others.length <= limit };
  };

  return {
    /** Builds the index (at start) or brings it up to the projection's checkpoint as it is now. */
    sync,
    nearest,
    /**
     * What the similar-images route answers: brought up to date, the `limit` nearest images that
     * the images read model still has and shows the caller (its own, or public), with those
     * documents. Asks the index for four times as many while some drop out and more are left;
     * an image whose image and vectors documents are both gone is forgotten.
     */
    async visibleNearest(query: Int8Array, scope: SimilarScope, limit: number): Promise<{ shown: SimilarImage[]; found: Map<string, ImageDoc> }> {
      await sync();
      const images = readStore.collection<ImageDoc>(Collections.images);
      const found = new Map<string, ImageDoc>();
      for (let wanted = limit; ; wanted *= 4) {
        const { ranked, complete } = nearest(query, scope, wanted);
        const fresh = new Map((await images.find({ _id: { $in: ranked.map((r) => r.id).filter((id) => !found.has(id)) } })).map((image) => [image.id, image]));
        for (const [id, image] of fresh) if (image.public || image.account_id === scope.accountId) found.set(id, image);
        const gone = ranked.filter((r) => !found.has(r.id) && !fresh.has(r.id)).map((r) => r.id);
        if (gone.length > 0) {
          const left = await vectors().getMany(gone);
          for (const id of gone) if (!left.has(id)) remove(id);
        }
        const shown = ranked.filter((r) => found.has(r.id));
        if (shown.length >= limit || complete) return { shown: shown.slice(0, limit), found };
      }
    },
    /** Drops an image known to be deleted (neither its image nor its vectors document is left). */
    forget: remove,
    /** How many images are held (for tests and the performance notes). */
    get size(): number {
      return entries.size;
    },
    /** The bytes its matrices take (rows allocated, whether filled or not). */
    get bytes(): number {
      let total = 0;
      for (const partition of partitions.values()) total += partition.rows.byteLength;
      return total;
    },
  };
};

export type SimilarIndex = ReturnType<typeof similarIndex>;
