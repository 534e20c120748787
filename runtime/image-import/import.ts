import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { imageEvents, imageStream, type ImageEvent, type ImageLabelled } from '../../domain/images/image.ts';
import { decodeAll, type Recorded } from '../../infrastructure/event-store/recorded.ts';
import { imageDecider } from '../../domain/images/decide.ts';
import { foldEvents } from '../../domain/decider.ts';
import { isDomainError } from '../../domain/errors.ts';
import { Collections } from '../../contracts/read-models.ts';
import type { BreedDoc } from '../../contracts/reference-read-models.ts';
import { catalogueImageId, ensureCatalogueAccount, publishCatalogueImage, uploadCatalogueImage } from '../../command-api/handlers/catalogue-images.ts';
import type { CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import type { ReadStore } from '../../infrastructure/read-store/port.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import type { VisionModels } from '../../infrastructure/vision/port.ts';
import { processUpload, type ProcessedImage } from '../../infrastructure/images/process-upload.ts';
import { imageValidationProcessor } from '../../processors/images/validation.ts';
import { imageLabellingProcessor } from '../../processors/images/labelling.ts';
import { imageSizesProcessor } from '../../processors/images/sizes.ts';
import type { ProcessorDeps } from '../../processors/processor.ts';
import { breedMatcher, type BreedMatcher } from './breeds.ts';
import { folderEntries, manifestEntries, resolveEntry, type PhotoEntry, type PlannedPhoto, type Resolved, type SkipReason } from './sources.ts';

/**
 * The photo import (`npm run import:images`): every photo of a folder uploaded as the catalogue
 * account and taken through the image pipeline in this process — the upload checks and sizes
 * (processUpload), then the pipeline's own processors in order (validation, labelling, the small
 * sizes) — and, when it is licensed, safe and meant to be public, published (ImagePublished). The
 * events are those of any upload, so auditors and projections see the import as uploads.
 *
 * Idempotent and resumable: a photo's image id is derived from its bytes, so a photo whose stream
 * exists was imported before and is skipped (`already_imported`) — unless an earlier run stopped
 * before its pipeline finished, which is then completed (counted as imported). At most
 * `concurrency` photos are in flight; the folder or manifest is streamed, never listed whole.
 */

export type ImportDeps = { eventStore: EventStore; readStore: ReadStore; blobs: BlobStore; vision: VisionModels; logger: Logger };

export type ImportOptions = {
  folder: string;
  /** CSV or JSON lines; without it, the folder layout `<breed>/<file>`. */
  manifest?: string;
  /** Photos in flight at once (default 2). */
  concurrency?: number;
  /** Called once per photo, in completion order. */
  onOutcome?: (outcome: PhotoOutcome) => void;
};

export type PhotoOutcome =
  | { file: string; status: 'imported'; image_id: string; species_id: string | null; public: boolean; resumed: boolean; breed_ids: string[] }
  | { file: string; status: 'skipped'; reason: SkipReason; detail: string; image_id?: string; folder?: string };

export type ImportSummary = {
  imported: number;
  /** Of the imported: made public, and kept private (no licence, or `public` false). */
  public: number;
  private: number;
  skipped: Record<SkipReason, number>;
  /** Imported photos by the species labelling found (`none`: no animal found). */
  by_species: Record<string, number>;
  /** Folders (folder layout) whose name matches no breed: their photos were skipped. */
  unknown_folders: string[];
  seconds: number;
  photos_per_second: number;
};

const CONTEXT: CommandContext = { accountId: null, requestId: null, actor: 'system:image-import' };

const emptySkips = (): Record<SkipReason, number> => ({
  already_imported: 0,
  duplicate: 0,
  unreadable: 0,
  unsafe: 0,
  unknown_breed: 0,
  unknown_licence: 0,
  invalid_row: 0,
});

/** The reference breeds as the read model has them (id, name, alternative names). */
export const loadBreedMatcher = async (readStore: ReadStore): Promise<BreedMatcher> => {
  const docs = await readStore.collection<BreedDoc>(Collections.breeds).find({});
  return breedMatcher(docs.map((doc) => ({ id: doc.id, name: doc.name, species_id: doc.species_id, alt_names: doc.resource.alt_names })));
};

/** The entries an import reads, in order: the manifest's rows or the folder's photos. */
export const importEntries = (options: Pick<ImportOptions, 'folder' | 'manifest'>): AsyncGenerator<PhotoEntry> =>
  options.manifest ? manifestEntries(options.manifest) : folderEntries(options.folder);

/** The entries an import reads, each resolved into a photo to import or a reason to skip it (streamed). */
export async function* resolvedEntries(options: Pick<ImportOptions, 'folder' | 'manifest'>, breeds: BreedMatcher): AsyncGenerator<Resolved> {
  for await (const entry of importEntries(options)) yield resolveEntry(entry, options.folder, breeds);
}

/** How many entries an import will read (a first streamed pass, for the progress bar). */
export const countEntries = async (options: Pick<ImportOptions, 'folder' | 'manifest'>): Promise<number> => {
  let count = 0;
  for await (const _ of importEntries(options)) count += 1;
  return count;
};

/** A photo's bytes and content hash, checked and sized as an upload is (processUpload); what is wrong with it otherwise. */
export const preparePhoto = async (path: string): Promise<{ bytes: Buffer; sha256: string; image: () => Promise<ProcessedImage> } | { problem: string }> => {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    return { problem: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), image: () => processUpload(bytes) };
};

const eventsOf = async (store: EventStore, imageId: string): Promise<Recorded<ImageEvent>[]> => decodeAll(imageEvents, await store.readStream(imageStream(imageId)));

/**
 * Takes an uploaded catalogue image through what is left of its pipeline — validation, labelling,
 * small sizes, publication — calling the pipeline's processors with the events they react to, as
 * the bus would. Each step is idempotent (the processors skip an image past their step), so a
 * service running its own processors on the same log at the same time changes nothing.
 */
const completePipeline = async (deps: ImportDeps, imageId: string, sizes: boolean) => {
  const processorDeps: ProcessorDeps = { eventStore: deps.eventStore, readStore: deps.readStore, blobs: deps.blobs, vision: deps.vision, logger: deps.logger };
  let events = await eventsOf(deps.eventStore, imageId);
  const uploaded = events.find((event) => event.type === 'ImageUploaded')!;
  if (!events.some((event) => event.type === 'ImageValidated')) {
    await imageValidationProcessor.handle(uploaded, processorDeps);
    events = await eventsOf(deps.eventStore, imageId);
  }
  const validated = events.find((event) => event.type === 'ImageValidated');
  if (validated && !events.some((event) => event.type === 'ImageLabelled')) {
    await imageLabellingProcessor.handle(validated, processorDeps);
    events = await eventsOf(deps.eventStore, imageId);
  }
  if (sizes) await imageSizesProcessor.handle(uploaded, processorDeps);
  let state = foldEvents(imageDecider, events);
  if (state.exists && !state.deleted && state.publicWhenSafe && !state.isPublic && state.verdict === 'clean' && state.status === 'labelled') {
    await publishCatalogueImage(deps.eventStore, imageId, { ...CONTEXT, causationId: uploaded.id });
    state = { ...state, isPublic: true };
  }
  const labelled = events.find((event): event is Recorded<ImageLabelled> => event.type === 'ImageLabelled');
  return { state, speciesId: labelled?.data.species_id ?? null };
};

/** An image as far as its pipeline has got: done when labelled, and published if it is to be (or unsafe, which is never published). */
const isComplete = (events: Recorded<ImageEvent>[]): boolean => {
  const state = foldEvents(imageDecider, events);
  if (!state.exists) return false;
  if (state.deleted) return true;
  if (state.status !== 'labelled') return false;
  return !state.publicWhenSafe || state.isPublic || state.verdict === 'unsafe';
};

/** Imports one resolved photo; `seen` holds the content hashes of this run (duplicates within it). */
const importPhoto = async (deps: ImportDeps, photo: PlannedPhoto, seen: Set<string>): Promise<PhotoOutcome> => {
  const skip = (reason: SkipReason, detail: string, imageId?: string): PhotoOutcome => ({ file: photo.file, status: 'skipped', reason, detail, ...(imageId ? { image_id: imageId } : {}) });
  const prepared = await preparePhoto(photo.path);
  if ('problem' in prepared) return skip('unreadable', prepared.problem);
  const imageId = catalogueImageId(prepared.sha256);
  if (seen.has(prepared.sha256)) return skip('duplicate', 'the same bytes as another photo of this import', imageId);
  seen.add(prepared.sha256);

  let resumed = false;
  const existing = await eventsOf(deps.eventStore, imageId);
  if (existing.length > 0) {
    if (isComplete(existing)) {
      const state = foldEvents(imageDecider, existing);
      return skip('already_imported', state.exists && state.deleted ? 'imported before and deleted since' : 'imported before (same bytes)', imageId);
    }
    resumed = true; // an earlier run stopped mid-pipeline: finish it
  } else {
    let image: ProcessedImage;
    try {
      image = await prepared.image();
    } catch (error) {
      if (isDomainError(error)) return skip('unreadable', `${error.code}: ${error.message}`);
      throw error;
    }
    const uploaded = await uploadCatalogueImage(
      { eventStore: deps.eventStore, blobs: deps.blobs },
      {
        sha256: prepared.sha256,
        image,
        original_filename: photo.file.split('/').pop() ?? null,
        sub_id: photo.sub_id,
        breed_ids: photo.breed_ids,
        attribution: photo.attribution,
        public: photo.public,
      },
      CONTEXT,
    );
    if (uploaded.status === 'exists') return skip('duplicate', 'the same bytes as another photo, imported meanwhile', imageId);
  }
  const { state, speciesId } = await completePipeline(deps, imageId, true);
  if (!state.exists || state.deleted) return skip('already_imported', 'deleted while it was imported', imageId);
  if (state.verdict === 'unsafe') return skip('unsafe', 'the safety check found it unsafe: kept private, not in the catalogue', imageId);
  return { file: photo.file, status: 'imported', image_id: imageId, species_id: speciesId, public: state.isPublic, resumed, breed_ids: state.breedIds };
};

/**
 * Runs an import to the end and answers its summary. Opens the catalogue account first (once).
 * The read store must hold the reference breeds (breed matching, labelling) — the CLI runs the
 * projections in its own process on the embedded store.
 */
export const importImages = async (deps: ImportDeps, options: ImportOptions): Promise<ImportSummary> => {
  const started = performance.now();
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  await ensureCatalogueAccount(deps.eventStore, CONTEXT);
  const breeds = await loadBreedMatcher(deps.readStore);
  if (breeds.size === 0) throw new Error('the read store has no breeds: import the reference data (npm run import) and let the projections catch up first');
  const summary: ImportSummary = { imported: 0, public: 0, private: 0, skipped: emptySkips(), by_species: {}, unknown_folders: [], seconds: 0, photos_per_second: 0 };
  const seen = new Set<string>();
  const record = (outcome: PhotoOutcome) => {
    if (outcome.status === 'imported') {
      summary.imported += 1;
      if (outcome.public) summary.public += 1;
      else summary.private += 1;
      const species = outcome.species_id ?? 'none';
      summary.by_species[species] = (summary.by_species[species] ?? 0) + 1;
    } else {
      summary.skipped[outcome.reason] += 1;
      if (outcome.folder && !summary.unknown_folders.includes(outcome.folder)) summary.unknown_folders.push(outcome.folder);
    }
    options.onOutcome?.(outcome);
  };

  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;
  for await (const resolved of resolvedEntries(options, breeds)) {
    if (failure) break;
    if ('skip' in resolved) {
      record({ file: resolved.file, status: 'skipped', reason: resolved.skip, detail: resolved.detail, ...(resolved.folder ? { folder: resolved.folder } : {}) });
      continue;
    }
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (failure) break;
    const task: Promise<void> = importPhoto(deps, resolved.photo, seen)
      .then(record, (error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  summary.seconds = (performance.now() - started) / 1000;
  summary.photos_per_second = summary.seconds > 0 ? summary.imported / summary.seconds : 0;
  return summary;
};
