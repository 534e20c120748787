import { bodyConditionProcessor } from './body-condition.ts';
import { estimatesProcessor } from './estimates.ts';
import { respiratoryRateProcessor } from './respiratory-rate.ts';
import { portraitProcessor } from './portrait.ts';

/** The pet-analysis processors (each computes analyses from events and appends their results). */
export const petAnalysisProcessors = [respiratoryRateProcessor, estimatesProcessor, bodyConditionProcessor, portraitProcessor];
