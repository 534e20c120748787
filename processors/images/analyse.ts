/**
 * What the models see in one image, as the labelling processor records it (and as
 * `npm run eval:vision` measures it): the detector finds the objects; the classifier looks at the
 * whole image and at the crops of the most confident animals; the species comes from all of that
 * (domain/images/analysis.ts, speciesFrom), cat and dog boxes relabelled by their crops.
 */
import { animalDetections, speciesFrom } from '../../domain/images/analysis.ts';
import type { ClassifierView, Detection, VisionModels } from '../../infrastructure/vision/port.ts';

/** Detections below this confidence are neither labelled nor cropped. */
export const MIN_DETECTION_CONFIDENCE = 0.4;
/** The classifier looks at the crops of at most this many animals (the most confident). */
export const MAX_CLASSIFIED_CROPS = 3;

export type ImageAnalysis = {
  /** every detection at or above the floor, best first, animals relabelled */
  detections: Detection[];
  /** the animals (cats, dogs, horses) among them, relabelled, most confident first */
  animals: Detection[];
  species: string | null;
  /** the classifier on the whole image */
  whole: ClassifierView;
  /** the classifier on the main animal's crop (the most confident animal), else on the whole image */
  main: ClassifierView;
  mainRegion: 'crop' | 'image';
  /** the classifier on the crops of the most confident animals (at most MAX_CLASSIFIED_CROPS), in confidence order */
  crops: ClassifierView[];
};

export const analyseImage = async (vision: VisionModels, image: Buffer): Promise<ImageAnalysis> => {
  const detected = (await vision.detect(image, { minConfidence: MIN_DETECTION_CONFIDENCE })).filter((d) => d.confidence >= MIN_DETECTION_CONFIDENCE);
  const found = [...animalDetections(detected, MIN_DETECTION_CONFIDENCE)].sort((a, b) => b.confidence - a.confidence);
  const classified = found.slice(0, MAX_CLASSIFIED_CROPS);
  const [whole, ...crops] = await vision.examine(image, [null, ...classified.map((animal) => animal.box)], { topK: 5 });
  const { species, animals } = speciesFrom(
    found.map((detection, index) => ({ detection, crop: crops[index]?.mass ?? null })),
    whole.mass,
  );
  // relabelAnimal keeps each detection's box object: it identifies the detection across the relabelling
  const byBox = new Map(animals.map((animal) => [animal.box, animal]));
  const detections = detected.map((d) => byBox.get(d.box) ?? d);
  const mainIndex = animals.length > 0 ? classified.findIndex((animal) => animal.box === animals[0].box) : -1;
  return { detections, animals, species, whole, main: mainIndex >= 0 ? crops[mainIndex] : whole, mainRegion: mainIndex >= 0 ? 'crop' : 'image', crops };
};
