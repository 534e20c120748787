import type { Processor } from '../processor.ts';
import { imageValidationProcessor } from './validation.ts';
import { imageLabellingProcessor } from './labelling.ts';

/** The image pipeline: validation (moderation model) then labelling (detector + classifier). */
export const imageProcessors: Processor[] = [imageValidationProcessor, imageLabellingProcessor];
