/**
 * Turning model outputs into the image's analysis — pure functions, no models and no I/O here:
 * - labels in TheCatAPI/Rekognition's shape from detections (with boxes) and classifications,
 * - the species from the animals found (cat, dog, horse),
 * - suggested breeds: the classifier's breed classes (ImageNet) matched to our breed names,
 * - dominant colour to the species' colour vocabulary, and orientation.
 */
import type { FractionBox, ImageLabel } from './image.ts';

export type DetectionInput = { label: string; confidence: number; box: FractionBox };
export type ClassificationInput = { label: string; index: number; confidence: number };

/** COCO labels of the animals the service knows, and their species ids. */
export const ANIMAL_SPECIES: Record<string, string> = { cat: '1', dog: '2', horse: '3' };

/** ImageNet-1k class ranges: 151–268 dog breeds, 281–285 domestic cats; 339 sorrel (a horse). */
export const speciesOfClass = (index: number): string | null =>
  index >= 151 && index <= 268 ? '2' : index >= 281 && index <= 285 ? '1' : index === 339 ? '3' : null;

const PARENTS: Record<string, string[]> = {
  cat: ['Pet', 'Mammal', 'Animal'],
  dog: ['Pet', 'Mammal', 'Animal'],
  horse: ['Mammal', 'Animal'],
  bird: ['Animal'],
  sheep: ['Mammal', 'Animal'],
  cow: ['Mammal', 'Animal'],
};
const SPECIES_NAME: Record<string, string> = { '1': 'cat', '2': 'dog', '3': 'horse' };

const titleCase = (text: string): string => text.replace(/(^|[\s-])([a-z])/g, (_, space: string, letter: string) => space + letter.toUpperCase());
/** ImageNet labels list synonyms ("tabby, tabby cat"): the first names the class. */
export const className = (label: string): string => label.split(',')[0].trim();
const percent = (value: number): number => Math.round(value * 10000) / 100;

/** The animal detections the service acts on (auto-crop, species): cats, dogs, horses at or above `minConfidence`. */
export const animalDetections = <D extends DetectionInput>(detections: readonly D[], minConfidence = 0.5): D[] =>
  detections.filter((detection) => detection.label in ANIMAL_SPECIES && detection.confidence >= minConfidence);

/**
 * Labels: one per detected object class (instances with their boxes), one per classifier class,
 * and the parent categories (Pet, Mammal, Animal) at the best confidence of their children.
 */
export const labelsFrom = (detections: readonly DetectionInput[], classifications: readonly ClassificationInput[]): ImageLabel[] => {
  const labels = new Map<string, ImageLabel>();
  const add = (name: string, confidence: number, parents: string[], instance?: DetectionInput) => {
    const existing = labels.get(name) ?? { Name: name, Confidence: 0, Instances: [], Parents: parents.map((parent) => ({ Name: parent })) };
    existing.Confidence = Math.max(existing.Confidence, percent(confidence));
    if (instance) {
      existing.Instances.push({
        BoundingBox: { Width: instance.box.width, Height: instance.box.height, Left: instance.box.left, Top: instance.box.top },
        Confidence: percent(instance.confidence),
      });
    }
    labels.set(name, existing);
    for (const parent of parents) add(parent, confidence, PARENTS[parent.toLowerCase()]?.slice(1) ?? []);
  };
  for (const detection of detections) add(titleCase(detection.label), detection.confidence, PARENTS[detection.label] ?? [], detection);
  for (const classification of classifications) {
    const species = speciesOfClass(classification.index);
    const parents = species ? [titleCase(SPECIES_NAME[species]), ...(PARENTS[SPECIES_NAME[species]] ?? [])] : [];
    add(titleCase(className(classification.label)), classification.confidence, parents);
  }
  return [...labels.values()].sort((a, b) => b.Confidence - a.Confidence);
};

/** The classifier's probability mass on the ImageNet dog classes (151–268) and on the domestic cat classes (281–285), each 0..1. */
export type SpeciesMass = { cat: number; dog: number };

/** With no animal box, the whole image is a cat or a dog when that species holds at least this much of the classifier's mass. */
export const WHOLE_IMAGE_SPECIES_MASS = 0.5;

/**
 * A crop (or image) with less of the classifier's mass than this on the five cat classes is no
 * cat. The classifier has 118 dog classes and 5 cat classes: a cat unlike ImageNet's five (a
 * Sphynx, a black Bombay) spreads its mass over look-alike dogs (Mexican hairless, schipperke) —
 * more dog than cat — yet keeps a few per cent on the cat classes, while a dog keeps almost none.
 * Measured on the Oxford-IIIT Pet sample's detector boxes: the crops of 116 cats held ≥ 1.9 % cat
 * mass, 234 of 236 dogs' crops under 1 % (the dog beside a bicycle: 0.3 %).
 */
export const CAT_MASS_FLOOR = 0.01;

/** A horse box is a dog's when its crop is a dog by the classifier (cropVerdict) with at least this much dog mass. */
export const HORSE_TO_DOG_MASS = 0.8;

/** An animal box and what the classifier saw in its crop (null when the crop was not classified: a box beyond the few classified). */
export type AnimalEvidence<D extends DetectionInput = DetectionInput> = { detection: D; crop: SpeciesMass | null };

/**
 * What the classifier's mass says: a cat when more of it is on the cat classes than on the dog
 * classes; a dog when more is on the dog classes and the cat classes hold under CAT_MASS_FLOOR;
 * otherwise nothing decisive (null).
 */
export const massVerdict = (mass: SpeciesMass): 'cat' | 'dog' | null => {
  if (mass.cat > mass.dog) return 'cat';
  if (mass.dog > mass.cat && mass.cat < CAT_MASS_FLOOR) return 'dog';
  return null;
};

/**
 * An animal box relabelled by its crop. The detector places animals well but confuses cats and
 * dogs (a dog beside a bicycle came out as 'cat' 43 % and 'dog' 34 % on one box); the classifier,
 * with 118 dog and 5 cat classes, tells them apart on the crop (massVerdict). A cat or dog box
 * takes the crop's verdict when it has one. A horse box stays a horse (ImageNet's one horse class,
 * sorrel, is a colour: the classifier cannot confirm horses) unless its crop is a dog with at
 * least HORSE_TO_DOG_MASS of the mass (the detector took a few brindle and fawn dogs for horses).
 * A box without a crop keeps the detector's label.
 */
export const relabelAnimal = <D extends DetectionInput>({ detection, crop }: AnimalEvidence<D>): D => {
  if (!crop) return detection;
  const verdict = massVerdict(crop);
  let label = detection.label;
  if ((label === 'cat' || label === 'dog') && verdict) label = verdict;
  else if (label === 'horse' && verdict === 'dog' && crop.dog >= HORSE_TO_DOG_MASS) label = 'dog';
  return label === detection.label ? detection : { ...detection, label };
};

/**
 * The species from all the evidence: the animal boxes, relabelled by their crops (relabelAnimal),
 * the most confident first. With no animal box, the whole image: when the cat and dog classes
 * together hold at least WHOLE_IMAGE_SPECIES_MASS, their massVerdict; failing that, a species
 * holding WHOLE_IMAGE_SPECIES_MASS alone; otherwise none (horses never come from the classifier).
 * Returns the relabelled animals too, most confident first (the image is labelled and cropped by them).
 */
export const speciesFrom = <D extends DetectionInput>(animals: readonly AnimalEvidence<D>[], whole: SpeciesMass): { species: string | null; animals: D[] } => {
  const relabelled = animals.map(relabelAnimal).filter((d) => d.label in ANIMAL_SPECIES).sort((a, b) => b.confidence - a.confidence);
  if (relabelled.length > 0) return { species: ANIMAL_SPECIES[relabelled[0].label], animals: relabelled };
  const verdict = whole.cat + whole.dog >= WHOLE_IMAGE_SPECIES_MASS ? massVerdict(whole) : null;
  if (verdict) return { species: ANIMAL_SPECIES[verdict], animals: [] };
  if (whole.dog >= WHOLE_IMAGE_SPECIES_MASS) return { species: ANIMAL_SPECIES.dog, animals: [] };
  if (whole.cat >= WHOLE_IMAGE_SPECIES_MASS) return { species: ANIMAL_SPECIES.cat, animals: [] };
  return { species: null, animals: [] };
};

export type BreedName = { id: string; name: string; species_id: string };

const normalise = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

/**
 * Our breeds named by the classifier's breed classes (confidence ≥ `minConfidence`), best first:
 * a class matches a breed of its species whose name equals one of the class's synonyms, with or
 * without a trailing "cat"/"dog", or starts with it ("Egyptian cat" → Egyptian Mau).
 */
export const suggestBreeds = (classifications: readonly ClassificationInput[], breeds: readonly BreedName[], minConfidence = 0.1): string[] =>
  [...breedNameScores(classifications, breeds, minConfidence).keys()];

/**
 * The same by-name map with its confidences: each of our breeds named by a classifier class at or
 * above `minConfidence`, with that class's probability (the best one when several name it), best first.
 */
export const breedNameScores = (classifications: readonly ClassificationInput[], breeds: readonly BreedName[], minConfidence = 0.1): Map<string, number> => {
  const found = new Map<string, number>();
  for (const classification of [...classifications].sort((a, b) => b.confidence - a.confidence)) {
    const species = speciesOfClass(classification.index);
    if (!species || classification.confidence < minConfidence) continue;
    const names = classification.label.split(',').map(normalise).flatMap((name) => [name, name.replace(/ (cat|dog)$/, '')]).filter((name) => name.length >= 3);
    const candidates = breeds.filter((breed) => breed.species_id === species);
    const exact = candidates.find((breed) => names.includes(normalise(breed.name)));
    const prefix = exact ?? candidates.find((breed) => names.some((name) => normalise(breed.name).startsWith(`${name} `)));
    if (prefix && !found.has(prefix.id)) found.set(prefix.id, classification.confidence);
  }
  return found;
};

/** Approximate sRGB of the base colours named in the colour vocabulary. */
export const BASE_COLOUR_RGB: Record<string, [number, number, number]> = {
  black: [25, 25, 25],
  white: [240, 240, 236],
  blue: [125, 135, 150],
  grey: [128, 128, 128],
  'slate grey': [100, 108, 118],
  silver: [192, 192, 196],
  chocolate: [92, 58, 38],
  'dark brown': [60, 40, 28],
  liver: [104, 52, 34],
  cinnamon: [150, 92, 58],
  'reddish brown': [140, 64, 34],
  red: [200, 104, 44],
  'pale red': [214, 142, 100],
  cream: [236, 214, 176],
  fawn: [200, 168, 136],
  wheaten: [226, 200, 150],
  tan: [210, 178, 138],
  'yellow-tan': [220, 188, 120],
  yellow: [230, 200, 100],
  gold: [212, 162, 64],
  golden: [212, 162, 64],
  lilac: [190, 176, 182],
};

export type ColourCandidate = { id: string; code: string; base_colour: string };

const distance = (a: readonly number[], b: readonly number[]): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The base colour name nearest to an RGB colour. */
export const nearestBaseColour = (rgb: readonly number[]): string =>
  Object.entries(BASE_COLOUR_RGB).reduce((best, [name, value]) => (distance(rgb, value) < distance(rgb, BASE_COLOUR_RGB[best]) ? name : best), 'black');

/** The colour-vocabulary entry (of one species, solid base colours only) nearest to an RGB colour, or null. */
export const nearestColour = (rgb: readonly number[], candidates: readonly ColourCandidate[]): ColourCandidate | null => {
  let best: ColourCandidate | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const value = BASE_COLOUR_RGB[candidate.base_colour];
    if (!value) continue;
    const d = distance(rgb, value);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
};

export const orientationOf = (width: number, height: number): 'landscape' | 'portrait' | 'square' =>
  Math.abs(width - height) <= Math.max(width, height) * 0.02 ? 'square' : width > height ? 'landscape' : 'portrait';
