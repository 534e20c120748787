/**
 * The reference categories an image is put in from what the models saw — pure, no models and no
 * I/O. A category is assigned only on evidence the models can give: a mapped ImageNet class of
 * the classifier (on the whole image or an animal's crop) or a mapped COCO object of the
 * detector, or the animal's age given by the uploader (kittens, puppies, foals). Categories the
 * models cannot see (sleeping, grooming, agility, dressage, …) are never assigned: unassigned
 * rather than guessed. Categories belong to a species (reference-data/categories.json: "snow" is
 * one category for cats, another for dogs, another for horses), so an image gets the categories
 * of the species it was labelled with, and none without a species.
 */

/** A classifier class as the views report it: ImageNet index and probability 0..1. */
export type SeenClass = { index: number; confidence: number };
/** A detector object: COCO label and confidence 0..1. */
export type SeenObject = { label: string; confidence: number };
export type CategoryRef = { id: string; name: string; species_id: string };

/**
 * A category's ImageNet classes count when their summed probability in one view of the
 * classifier (the whole image, or one animal's crop) reaches this. Pet photos put most of the
 * mass on the animal, so an object beside it rarely gets more; on the Oxford-IIIT Pet sample's
 * 370 photos the only non-animal classes at ≥ 0.15 were two tennis balls (0.81, 0.48) and an
 * upright piano (0.39), none of them mistaken.
 */
export const CATEGORY_CLASS_MASS = 0.15;
/** A category's COCO objects count from this detector confidence. */
export const CATEGORY_OBJECT_CONFIDENCE = 0.5;
/** Kittens, puppies and foals: an animal the uploader says is younger than this (months). */
export const YOUNG_MONTHS = 12;

/** The evidence for each category, by the category's name (the same for every species that has it). */
export type CategoryEvidence = { imagenet?: readonly number[]; coco?: readonly string[]; youngerThanMonths?: number };

/** Garments the classifier names (ImageNet indices): jersey/T-shirt, sweatshirt, cardigan, pyjama, kimono, poncho, cloak, trench coat, suit, apron, bib, gown, hoopskirt, overskirt, miniskirt, vestment, academic gown, abaya, lab coat, sock, Christmas stocking, diaper. */
const GARMENTS = [610, 841, 474, 697, 614, 735, 501, 869, 834, 411, 443, 578, 601, 689, 655, 887, 400, 399, 617, 806, 496, 529] as const;
/** Balls and a frisbee: a pet with one is playing. ImageNet tennis ball, soccer ball, rugby ball, volleyball, basketball, baseball, croquet ball, golf ball, ping-pong ball. */
const BALLS = [852, 805, 768, 890, 430, 429, 522, 574, 722] as const;

export const CATEGORY_EVIDENCE: Readonly<Record<string, CategoryEvidence>> = {
  // cowboy hat, sombrero, bonnet, mortarboard, shower cap, bathing cap
  hats: { imagenet: [515, 808, 452, 667, 793, 433] },
  // sunglass, sunglasses
  sunglasses: { imagenet: [836, 837] },
  // carton, crate
  boxes: { imagenet: [478, 519] },
  // Windsor tie, bow tie, bolo tie; COCO tie
  ties: { imagenet: [906, 457, 451], coco: ['tie'] },
  // washbasin; COCO sink
  sinks: { imagenet: [896], coco: ['sink'] },
  clothes: { imagenet: GARMENTS },
  // dogs and horses have "costumes" where cats have "clothes": the same garments, and a mask
  costumes: { imagenet: [...GARMENTS, 643] },
  // space shuttle
  space: { imagenet: [812] },
  // window screen, window shade
  windows: { imagenet: [904, 905] },
  // snowmobile, snowplow, ski, dogsled; COCO skis, snowboard
  snow: { imagenet: [802, 803, 795, 537], coco: ['skis', 'snowboard'] },
  // seashore, sandbar; COCO surfboard
  beach: { imagenet: [978, 977], coco: ['surfboard'] },
  playing: { imagenet: BALLS, coco: ['sports ball', 'frisbee'] },
  kittens: { youngerThanMonths: YOUNG_MONTHS },
  puppies: { youngerThanMonths: YOUNG_MONTHS },
  foals: { youngerThanMonths: YOUNG_MONTHS },
};

/** Where one name means different evidence for different species (by species id, then name). */
export const SPECIES_CATEGORY_EVIDENCE: Readonly<Record<string, Readonly<Record<string, CategoryEvidence>>>> = {
  // a working dog: dogsled
  '2': { working: { imagenet: [537] } },
  // a working horse: horse cart, plough, oxcart
  '3': { working: { imagenet: [603, 730, 690] } },
};

const evidenceFor = (name: string, species: string): CategoryEvidence | undefined => {
  const key = name.toLowerCase();
  return SPECIES_CATEGORY_EVIDENCE[species]?.[key] ?? CATEGORY_EVIDENCE[key];
};

export type SeenEvidence = {
  /** the species the image was labelled with ('1' cat, '2' dog, '3' horse), null when none */
  species: string | null;
  /** the age the uploader gave (months), null when not given */
  ageMonths: number | null;
  /** each view of the classifier (the whole image, each classified crop): its top classes */
  views: readonly (readonly SeenClass[])[];
  /** the detector's objects */
  objects: readonly SeenObject[];
};

const seen = (evidence: CategoryEvidence, { ageMonths, views, objects }: SeenEvidence): boolean => {
  if (evidence.youngerThanMonths !== undefined && ageMonths !== null && ageMonths < evidence.youngerThanMonths) return true;
  const classes = new Set(evidence.imagenet ?? []);
  if (classes.size > 0) {
    for (const view of views) {
      const mass = view.filter((c) => classes.has(c.index)).reduce((sum, c) => sum + c.confidence, 0);
      if (mass >= CATEGORY_CLASS_MASS) return true;
    }
  }
  const labels = new Set(evidence.coco ?? []);
  return objects.some((o) => labels.has(o.label) && o.confidence >= CATEGORY_OBJECT_CONFIDENCE);
};

/**
 * The ids of the categories (of the image's species, among `categories`) the evidence shows, in
 * numeric id order; [] without a species. A category without an entry in CATEGORY_EVIDENCE (or
 * SPECIES_CATEGORY_EVIDENCE for its species) is never assigned.
 */
export const categoriesSeen = (input: SeenEvidence, categories: readonly CategoryRef[]): string[] => {
  if (input.species === null) return [];
  return categories
    .filter((category) => category.species_id === input.species)
    .filter((category) => {
      const evidence = evidenceFor(category.name, category.species_id);
      return evidence !== undefined && seen(evidence, input);
    })
    .map((category) => category.id)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
};
