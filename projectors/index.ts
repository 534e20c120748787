import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { accountsProjection } from './accounts.ts';
import { favouritesProjection } from './favourites.ts';
import type { Projection } from './projection.ts';
import { votesProjection } from './votes.ts';
import { webhooksProjection } from './webhooks.ts';
import { webhookDeliveriesProjection } from './webhook-deliveries.ts';
import { breedsProjection } from './breeds.ts';
import { factsProjection } from './facts.ts';
import { healthTipsProjection } from './health-tips.ts';
import { categoriesProjection } from './categories.ts';
import { legislationProjection } from './legislation.ts';
import { usageProjection } from './usage.ts';
import { petsProjection } from './pets.ts';
import { imagesProjection } from './images.ts';
import { uploadQuotasProjection } from './upload-quotas.ts';
import { respiratoryRatesProjection } from './respiratory-rates.ts';
import { bcsReviewsProjection } from './bcs-reviews.ts';
import { breedCentroidsProjection } from './breed-centroids.ts';

/** Every read-model projection, by name. The names are the ones the query API waits on. */
export const projections: Projection[] = [accountsProjection, votesProjection, favouritesProjection, webhooksProjection, webhookDeliveriesProjection, usageProjection,
  imagesProjection, uploadQuotasProjection,
  breedsProjection, factsProjection, healthTipsProjection, categoriesProjection, legislationProjection, petsProjection,
  respiratoryRatesProjection, bcsReviewsProjection, breedCentroidsProjection];

const missing = READ_MODEL_PROJECTIONS.filter((name) => !projections.some((projection) => projection.name === name));
if (missing.length > 0 || projections.length !== READ_MODEL_PROJECTIONS.length) {
  throw new Error(`projection list and READ_MODEL_PROJECTIONS disagree: ${missing.join(', ')}`);
}

export const projectionByName = (name: string): Projection | undefined => projections.find((projection) => projection.name === name);
