import type { Processor } from '../processor.ts';
import { imageValidationProcessor } from './validation.ts';
import { imageLabellingProcessor } from './labelling.ts';
import { imageSizesProcessor } from './sizes.ts';

/**
 * The image pipeline: validation (moderation model) then labelling (detector + classifier); beside
 * it, the image's small sizes.
 */
export const imageProcessors: Processor[] = [imageValidationProcessor, imageLabellingProcessor, imageSizesProcessor];
