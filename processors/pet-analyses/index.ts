import { respiratoryRateProcessor } from './respiratory-rate.ts';

/** The pet-analysis processors (each computes one analysis from events and appends its result). */
export const petAnalysisProcessors = [respiratoryRateProcessor];
