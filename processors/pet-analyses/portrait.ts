import { createHash } from 'node:crypto';
import sharp from 'sharp';
import {
  petAnalysisEvents,
  petAnalysisDecider,
  petAnalysisStream,
  type AnalysisResult,
  type PetAnalysisRequested,
  type PortraitOptions,
} from '../../domain/pet-analyses/analysis.ts';
import { isPortraitStyle, portraitBackgroundSvg, portraitPlacement, PORTRAIT_SIZE } from '../../domain/pet-analyses/portrait.ts';
import { petDecider } from '../../domain/pets/decide.ts';
import { petStream, type PetMedia } from '../../domain/pets/pet.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { ImageDecodeError } from '../../infrastructure/vision/decode.ts';
import type { Detection, VisionModels } from '../../infrastructure/vision/port.ts';
import { processorContext } from '../images/context.ts';
import { defineProcessor } from '../processor.ts';
import { cutOut, type Cutout } from './cutout.ts';

/** COCO classes that are animals; the pet's own species is preferred when several are found. */
const ANIMALS = ['cat', 'dog', 'horse', 'bird', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe'];
const SPECIES_LABEL: Record<string, string> = { '1': 'cat', '2': 'dog', '3': 'horse' };

const pct = (value: number) => `${Math.round(value * 100)} %`;

/** The animal to portray: the largest detection of the pet's species, else the largest animal. */
export const pickAnimal = (detections: Detection[], speciesId: string | null): Detection | null => {
  const animals = detections.filter((detection) => ANIMALS.includes(detection.label));
  const wanted = speciesId ? SPECIES_LABEL[speciesId] : undefined;
  const own = animals.filter((detection) => detection.label === wanted);
  const pool = own.length > 0 ? own : animals;
  const area = (detection: Detection) => detection.box.width * detection.box.height;
  return pool.reduce<Detection | null>((best, detection) => (!best || area(detection) > area(best) ? detection : best), null);
};

/** The portrait: the style's background with the cut-out composed on it (PNG, PORTRAIT_SIZE). */
export const renderPortrait = async (cutout: Cutout, style: string): Promise<Buffer> => {
  if (!isPortraitStyle(style)) throw new Error(`unknown portrait style ${style}`);
  const place = portraitPlacement(cutout.width, cutout.height);
  const figure = await sharp(cutout.image).resize(place.width, place.height, { fit: 'fill' }).png().toBuffer();
  return sharp(Buffer.from(portraitBackgroundSvg(style)))
    .resize(PORTRAIT_SIZE.width, PORTRAIT_SIZE.height)
    .composite([{ input: figure, left: place.left, top: place.top }])
    .png()
    .toBuffer();
};

/** The same key scheme as the uploaded media of a pet (command API): `pet-<petId>-<mediaId>`. */
const portraitBlobKey = (petId: string, mediaId: string) => `pet-${petId}-${mediaId}`;

/**
 * Portraits: on PetAnalysisRequested of kind `portrait`, reads the chosen photo, finds the animal
 * with the detector, cuts it out (cutout.ts), composes it onto the style's background, stores the
 * PNG and records it on the pet's stream (PetPortraitAdded, media id drawn from the analysis id so
 * a redelivered request stores one portrait), then appends PetAnalysed with the media id — or
 * PetAnalysisFailed with the reason (photo gone or rejected, no animal found, pet removed).
 */
export const portraitProcessor = defineProcessor({
  name: 'pet-analyses.portrait',
  streams: [petAnalysisEvents],
  requires: ['vision', 'blobs'],
  async handle(event, deps) {
    if (event.type !== 'PetAnalysisRequested') return;
    const request = event.data;
    if (request.kind !== 'portrait' || !request.portrait) return;
    const stream = petAnalysisStream(request.analysis_id);
    const context = processorContext('pet-analyses.portrait', event);
    const analysis = await stateOf(deps.eventStore, stream, petAnalysisDecider);
    if (analysis.state.status !== 'requested') return;
    const now = new Date().toISOString();
    const pet = (await stateOf(deps.eventStore, petStream(request.pet_id), petDecider)).state;
    const record = pet.status === 'active' ? pet.media.get(request.portrait.image_id) : undefined;
    const outcome = await portraitOutcome(request, request.portrait, record, deps.blobs!, deps.vision!, now, async (portrait) => {
      const appended = await handleCommand(deps.eventStore, petStream(request.pet_id), petDecider, { type: 'AddPortrait', portrait, now }, context);
      return appended.state.status === 'active' && appended.state.media.has(portrait.media_id);
    });
    await handleCommand(deps.eventStore, stream, petAnalysisDecider, { type: 'RecordAnalysis', outcome, now }, context);
  },
});

const portraitOutcome = async (
  request: PetAnalysisRequested['data'],
  options: PortraitOptions,
  record: PetMedia | undefined,
  blobs: BlobStore,
  vision: VisionModels,
  now: string,
  store: (portrait: PetMedia) => Promise<boolean>,
): Promise<AnalysisResult | { failed: string }> => {
  if (!record || record.kind !== 'photo') return { failed: `photo ${options.image_id} is no longer one of the pet's photos (the pet or the photo was removed)` };
  if (record.review_status === 'rejected') return { failed: `photo ${options.image_id} was rejected by the safety review` };
  const blob = await blobs.get(record.blob_key);
  if (!blob) return { failed: `photo ${options.image_id} is no longer stored` };
  let detections: Detection[];
  try {
    detections = await vision.detect(blob.data);
  } catch (error) {
    if (error instanceof ImageDecodeError) return { failed: `photo ${options.image_id} could not be decoded` };
    throw error;
  }
  const animal = pickAnimal(detections, request.inputs.species_id);
  if (!animal) return { failed: `no animal was found in photo ${options.image_id}` };
  const cutout = await cutOut(blob.data, animal.box);
  const png = await renderPortrait(cutout, options.style);
  const mediaId = `portrait-${request.analysis_id}`;
  const key = portraitBlobKey(request.pet_id, mediaId);
  await blobs.put(key, png, 'image/png');
  const portrait: PetMedia = {
    media_id: mediaId,
    kind: 'portrait',
    blob_key: key,
    content_hash: createHash('sha256').update(png).digest('hex'),
    mime_type: 'image/png',
    size_bytes: png.length,
    width: PORTRAIT_SIZE.width,
    height: PORTRAIT_SIZE.height,
    pose: record.pose,
    age_years: record.age_years,
    age_months: record.age_months,
    pet_age_months: record.pet_age_months,
    description: `${options.style} portrait from photo ${options.image_id}`,
    original_filename: null,
    duration_seconds: null,
    video_codec: null,
    container: null,
    review_status: record.review_status,
    created_at: now,
    portrait_style_id: options.style,
  };
  if (!(await store(portrait))) {
    await blobs.delete(key).catch(() => false);
    return { failed: 'the pet was removed before its portrait was stored' };
  }
  const mask =
    cutout.method === 'ellipse'
      ? 'nothing in the box stood apart from its border, so an ellipse inside the box was used'
      : `foreground ${pct(cutout.foreground_share)} of the box, background estimated from the box border`;
  return {
    kind: 'portrait',
    result: {
      media_id: mediaId,
      style: options.style,
      source_image_id: options.image_id,
      reasons: `${animal.label} found by the detector (confidence ${pct(animal.confidence)}) in photo ${options.image_id}; ${mask}; composed on the ${options.style} background`,
      generated_at: now,
    },
  };
};

