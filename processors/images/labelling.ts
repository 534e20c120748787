import sharp from 'sharp';
import { imageDecider } from '../../domain/images/decide.ts';
import {
  imageEvents,
  childImageId,
  imageStream,
  type ImageUploaded,
} from '../../domain/images/image.ts';
import {
  className,
  labelsFrom,
  nearestBaseColour,
  nearestColour,
  orientationOf,
  breedNameScores,
  type BreedName,
  type ColourCandidate,
} from '../../domain/images/analysis.ts';
import { decodeEmbedding, encodeEmbedding, type ImageEmbedding } from '../../domain/images/embedding.ts';
import { breedVectorOf, decodeSum, mergeCentroids, PUBLIC_SCOPE, suggestBreedsByCentroids, type SuggestedBreed } from '../../domain/images/breed-centroids.ts';
import { nearDuplicateOf } from '../../domain/images/duplicates.ts';
import { categoriesSeen, type CategoryRef } from '../../domain/images/categories.ts';
import { REFERENCE_COLLECTIONS, type CategoryDoc } from '../../contracts/reference-read-models.ts';
import { Collections, type BreedCentroidDoc, type BreedDoc, type ColourDoc, type ImageVectorDoc } from '../../contracts/read-models.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { decodeAll, type Recorded } from '../../infrastructure/event-store/recorded.ts';
import { isWrongExpectedRevision } from '../../infrastructure/event-store/port.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { cropImage } from '../../infrastructure/images/process-upload.ts';
import { isDomainError } from '../../domain/errors.ts';
import type { ReadStore } from '../../infrastructure/read-store/port.ts';
import { storeImageBlobs } from '../../infrastructure/images/blobs.ts';
import { defineProcessor, type Processor, type ProcessorDeps } from '../processor.ts';
import { analyseImage } from './analyse.ts';
import { processorContext } from './context.ts';

const breedNames = async (readStore: ReadStore | undefined, species: string | null): Promise<BreedName[]> => {
  if (!readStore || !species) return [];
  const docs = await readStore.collection<BreedDoc>(Collections.breeds).find({ species_id: species });
  return docs.map((doc) => ({ id: doc.id, name: doc.name, species_id: doc.species_id }));
};

/**
 * The breeds to suggest for an image of `species` seen as `embedding`: the nearest centroids of
 * the breeds of the public images and of the uploader's own (breed_centroids, as the
 * breed-centroids projection has them when the image is labelled), blended with the by-name
 * ImageNet map (domain/images/breed-centroids.ts). Recorded in ImageLabelled: replaying the
 * events gives the suggestions that were made, not ones recomputed from a later catalogue.
 */
const suggestedBreeds = async (
  readStore: ReadStore | undefined,
  accountId: string,
  species: string | null,
  embedding: ImageEmbedding,
  breeds: BreedName[],
  classifications: Parameters<typeof breedNameScores>[0],
): Promise<SuggestedBreed[]> => {
  if (!species) return [];
  const docs = readStore
    ? await readStore.collection<BreedCentroidDoc>(Collections.breedCentroids).find({ species_id: species, scope: { $in: [PUBLIC_SCOPE, accountId] } })
    : [];
  const centroids = mergeCentroids(docs.filter((doc) => doc.model === embedding.model).map((doc) => ({ breed_id: doc.breed_id, count: doc.count, sum: decodeSum(doc.sum) })));
  return suggestBreedsByCentroids(decodeEmbedding(embedding), centroids, breedNameScores(classifications, breeds), new Set(breeds.map((breed) => breed.id)));
};

/** Duplicates are looked for among the account's most recently labelled images, this many. */
export const DUPLICATE_CANDIDATES = 1000;

/**
 * The same account's earlier image this one nearly duplicates (nearDuplicateOf over the vectors
 * of the account's DUPLICATE_CANDIDATES most recently labelled images, as the breed-centroids
 * projection keeps them), or null. Auto-crop children are neither checked nor candidates.
 */
const duplicateOf = async (readStore: ReadStore | undefined, uploaded: ImageUploaded['data'], vector: ImageEmbedding): Promise<string | null> => {
  if (!readStore || uploaded.parent_image_id !== null) return null;
  const docs = await readStore.collection<ImageVectorDoc>(Collections.imageVectors).find({ account_id: uploaded.account_id, labelled_position: { $gte: 0 } }, { sort: { labelled_position: -1 }, limit: DUPLICATE_CANDIDATES });
  const candidates = docs
    .filter((doc) => doc._id !== uploaded.image_id && doc.parent_image_id === null && doc.embedding?.model === vector.model)
    .map((doc) => ({ id: doc._id, vector: decodeEmbedding(doc.embedding!) }));
  return nearDuplicateOf(decodeEmbedding(vector), candidates);
};

/** The reference categories of a species as the categories projection has them (withdrawn ones are gone). */
const categoriesOf = async (readStore: ReadStore | undefined, species: string | null): Promise<CategoryRef[]> => {
  if (!readStore || !species) return [];
  const docs = await readStore.collection<CategoryDoc>(REFERENCE_COLLECTIONS.categories).find({ species_id: species });
  return docs.map((doc) => ({ id: doc.id, name: doc.name, species_id: doc.species_id }));
};

const colourCandidates = async (readStore: ReadStore | undefined, species: string | null): Promise<ColourCandidate[]> => {
  if (!readStore || !species) return [];
  const docs = await readStore.collection<ColourDoc>(Collections.colours).find({ species_id: species });
  return docs.filter((doc) => doc.breed_id === null).map((doc) => ({ id: doc.id, code: doc.code, base_colour: doc.base_colour }));
};

/**
 * Child images for auto-crop: one per animal found, cropped from the full-size image and stored as
 * an image of its own (ImageUploaded on its own stream, `parent_image_id` set; it goes through
 * validation and labelling like any image, without auto-crop, and costs no quota). A child's id
 * is derived from its parent's and its index, so a processor restarted mid-image finds the
 * children it already made and does not make them twice.
 */
const makeChildren = async (deps: ProcessorDeps, parent: ImageUploaded['data'], boxes: { left: number; top: number; width: number; height: number }[], event: Parameters<Processor['handle']>[0]) => {
  const ids: string[] = [];
  if (boxes.length === 0) return ids;
  const full = await deps.blobs!.get(parent.blob_keys.full);
  if (!full) return ids;
  for (const [index, box] of boxes.entries()) {
    const id = childImageId(parent.image_id, index);
    ids.push(id);
    if ((await deps.eventStore.readStream(imageStream(id), { maxCount: 1 })).length > 0) continue;
    const cropped = await cropImage(full.data, parent.format, box);
    const blobKeys = await storeImageBlobs(deps.blobs!, id, cropped);
    try {
      await handleCommand(
        deps.eventStore,
        imageStream(id),
        imageDecider,
        {
          type: 'UploadImage',
          data: {
            image_id: id,
            account_id: parent.account_id,
            sub_id: parent.sub_id,
            original_filename: parent.original_filename ? `${parent.original_filename.replace(/\.[^.]*$/, '')}-crop-${index + 1}.${parent.format}` : null,
            mime_type: cropped.mime,
            format: cropped.format,
            width: cropped.width,
            height: cropped.height,
            bytes: cropped.sizes.full.length,
            age_months: parent.age_months,
            breed_ids: parent.breed_ids,
            url_token: randomId(24),
            blob_keys: blobKeys,
            auto_crop: false,
            parent_image_id: parent.image_id,
            crop_box: box,
            created_at: new Date().toISOString(),
          },
        },
        processorContext('image-labelling', event),
        { newStream: true },
      );
    } catch (error) {
      // Made by an earlier run that crashed after the append: keep that one.
      if (!isWrongExpectedRevision(error) && !(isDomainError(error) && error.code === 'conflict')) throw error;
    }
  }
  return ids;
};

/**
 * Labelling: clean | unsafe -> labelled. Runs the detector and the classifier on the `med` size,
 * maps their outputs (labels with boxes, species, suggested breeds), measures the dominant colour
 * of the main animal (or the whole image) against the species' colour vocabulary, and for an
 * auto-crop upload makes the child images first. Idempotent like validation.
 */
export const imageLabellingProcessor = defineProcessor({
  name: 'image-labelling',
  streams: [imageEvents],
  requires: ['vision', 'blobs'],
  async handle(event, deps) {
    if (event.type !== 'ImageValidated') return;
    const validated = event.data;
    const stream = imageStream(validated.image_id);
    const folded = await stateOf(deps.eventStore, stream, imageDecider);
    const state = folded.state;
    if (!state.exists || state.deleted || state.status === 'labelled' || state.status === 'to_be_reviewed') return;
    const uploaded = decodeAll(imageEvents, folded.events).find((recorded): recorded is Recorded<ImageUploaded> => recorded.type === 'ImageUploaded')!.data;
    const med = await deps.blobs!.get(uploaded.blob_keys.med);
    if (!med) {
      deps.logger.warn({ image_id: uploaded.image_id }, 'image bytes are gone (deleted?): not labelled');
      return;
    }
    const vision = deps.vision!;
    const { detections, animals, species, whole, main: seen, mainRegion, crops } = await analyseImage(vision, med.data);
    const classifications = whole.top;
    const main = animals[0];

    const meta = await sharp(med.data).metadata();
    const W = meta.width ?? 1;
    const H = meta.height ?? 1;
    const region = main
      ? {
          left: Math.min(W - 1, Math.max(0, Math.round(main.box.left * W))),
          top: Math.min(H - 1, Math.max(0, Math.round(main.box.top * H))),
          width: Math.max(1, Math.min(W - Math.round(main.box.left * W), Math.round(main.box.width * W))),
          height: Math.max(1, Math.min(H - Math.round(main.box.top * H), Math.round(main.box.height * H))),
        }
      : null;
    const stats = await (region ? sharp(med.data).extract(region) : sharp(med.data)).stats();
    const dominant = [stats.dominant.r, stats.dominant.g, stats.dominant.b];
    const colour = nearestColour(dominant, await colourCandidates(deps.readStore, species));
    const orientation = orientationOf(uploaded.width, uploaded.height);

    // children in detection order (the animals among the relabelled detections)
    const animalBoxes = detections.filter((d) => animals.includes(d)).map((d) => d.box);
    const children = state.autoCrop && state.parentImageId === null ? await makeChildren(deps, uploaded, animalBoxes, event) : [];
    const labels = labelsFrom(detections, classifications.filter((c) => c.confidence >= 0.05));
    const tags = [
      ...new Set([
        ...detections.map((d) => d.label),
        ...classifications.filter((c) => c.confidence >= 0.1).map((c) => className(c.label).toLowerCase()),
        colour?.base_colour ?? nearestBaseColour(dominant),
        orientation,
      ]),
    ];
    const models = vision.info().filter((info) => info.task !== 'safety');
    const classifier = models.find((info) => info.task === 'classification');
    const embedding = encodeEmbedding(seen.features, classifier ? `${classifier.name} ${classifier.version}` : 'unknown', mainRegion);
    const imageEmbedding = mainRegion === 'crop' ? encodeEmbedding(whole.features, embedding.model, 'image') : undefined;
    const breedVector = breedVectorOf({ embedding, image_embedding: imageEmbedding })!;
    const suggested = await suggestedBreeds(
      deps.readStore,
      uploaded.account_id,
      species,
      breedVector,
      await breedNames(deps.readStore, species),
      classifications,
    );
    await handleCommand(
      deps.eventStore,
      stream,
      imageDecider,
      {
        type: 'RecordLabels',
        data: {
          image_id: uploaded.image_id,
          account_id: uploaded.account_id,
          labels,
          species_id: species,
          suggested_breed_ids: suggested.map((breed) => breed.id),
          suggested_breeds: suggested,
          tags,
          colour_ids: colour ? [colour.id] : [],
          colour_codes: colour ? [colour.code] : [],
          orientation,
          child_image_ids: children,
          vendor: models.length > 0 ? models.map((info) => `${info.name} ${info.version}`).join(' + ') : 'unknown',
          embedding,
          ...(imageEmbedding ? { image_embedding: imageEmbedding } : {}),
          duplicate_of: await duplicateOf(deps.readStore, uploaded, breedVector),
          category_ids: categoriesSeen(
            { species, ageMonths: uploaded.age_months, views: [whole.top, ...crops.map((crop) => crop.top)], objects: detections },
            await categoriesOf(deps.readStore, species),
          ),
          labelled_at: new Date().toISOString(),
        },
      },
      processorContext('image-labelling', event),
    );
  },
});
