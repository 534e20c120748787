import type { ImageLabel } from './image.ts';

/** The detector's label name of each species (titleCase of the COCO class, see analysis.ts). */
const SPECIES_LABEL: Record<string, string> = { '1': 'Cat', '2': 'Dog', '3': 'Horse' };

/**
 * How sure the analysis is that the image shows an animal of `speciesId`, 0..100: the best
 * detection box of that species' label (its label's own confidence when it has no box), 0 when the
 * label is absent or the species unknown.
 */
export const speciesConfidence = (labels: readonly ImageLabel[], speciesId: string | null): number => {
  const name = speciesId === null ? undefined : SPECIES_LABEL[speciesId];
  const label = name === undefined ? undefined : labels.find((candidate) => candidate.Name === name);
  if (!label) return 0;
  const boxes = label.Instances.map((instance) => instance.Confidence);
  return boxes.length > 0 ? Math.max(...boxes) : label.Confidence;
};

/** What the choice of a breed's reference image knows of one image. */
export type ReferenceFacts = {
  /** Public since this log position (an approved request), null while private. */
  public_since: number | null;
  /** The safety check found it unsafe (it stays so after labelling). */
  unsafe: boolean;
  /** Cropped from another image by auto-crop. */
  child: boolean;
  /** The species the analysis found (null: not analysed yet, or no animal found). */
  species_id: string | null;
  /** speciesConfidence of that species. */
  confidence: number;
};

/** Whether an image may be a breed's reference image at all: public, not unsafe, not a child crop. */
export const canBeReference = (facts: ReferenceFacts): boolean => facts.public_since !== null && !facts.unsafe && !facts.child;

/**
 * Whether an image may stand for a breed of `breedSpeciesId`: the analysis found that species, or
 * none (an image not analysed, or where no animal was found, counts with confidence 0, so any
 * detected photo of the species beats it). A photo where another species was found never does.
 */
export const fitsSpecies = (facts: Pick<ReferenceFacts, 'species_id'>, breedSpeciesId: string): boolean => facts.species_id === null || facts.species_id === breedSpeciesId;

/**
 * The order of candidates, best first: higher detection confidence, then the one public earlier
 * (so a reference stays until a strictly better one arrives), then the id (a total order, so the
 * choice is the same on every replay).
 */
export const compareCandidates = (
  a: Pick<ReferenceFacts, 'confidence' | 'public_since'> & { id: string },
  b: Pick<ReferenceFacts, 'confidence' | 'public_since'> & { id: string },
): number => b.confidence - a.confidence || (a.public_since ?? Infinity) - (b.public_since ?? Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
