import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI `operationId` of every operation: stable camelCase names SDK generators
 * (openapi-generator, orval, openapi-python-client) name their methods after. They are part of the
 * API contract: renaming one breaks every generated client, so test/openapi-operation-ids.json
 * holds the published list and a test fails on a renamed, missing or unlisted one. A new
 * operation gets its name here (else a name derived from its method and path, which the test
 * asks to be listed).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  // votes and favourites
  'POST /v1/votes': 'createVote',
  'GET /v1/votes': 'listVotes',
  'GET /v1/votes/{id}': 'getVote',
  'DELETE /v1/votes/{id}': 'deleteVote',
  'DELETE /v1/vote/{id}': 'deleteVoteSingularPath',
  'POST /v1/favourites': 'createFavourite',
  'GET /v1/favourites': 'listFavourites',
  'GET /v1/favourites/{id}': 'getFavourite',
  'DELETE /v1/favourites/{id}': 'deleteFavourite',
  // images
  'GET /v1/images/search': 'searchImages',
  'GET /v1/images': 'listImages',
  'GET /v1/images/{id}': 'getImage',
  'DELETE /v1/images/{id}': 'deleteImage',
  'POST /v1/images/upload': 'uploadImage',
  'POST /v1/images/upload-sync': 'uploadImageSync',
  'GET /v1/images/{id}/status': 'getImageStatus',
  'GET /v1/images/{id}/analysis': 'getImageAnalysis',
  'GET /v1/images/{id}/similar': 'listSimilarImages',
  'GET /v1/images/files/{file}': 'getImageFile',
  'GET /v1/images/{id}/breeds': 'listImageBreeds',
  'POST /v1/images/{id}/breeds': 'tagImageBreed',
  'DELETE /v1/images/{id}/breeds/{breedId}': 'untagImageBreed',
  'POST /v1/images/{imageId}/public-requests': 'createPublicRequest',
  'GET /v1/images/{imageId}/public-requests': 'getPublicRequest',
  'POST /v1/images/{imageId}/public-requests/decision': 'decidePublicRequest',
  // accounts
  'GET /v1/accounts/capabilities': 'listCapabilities',
  'PATCH /v1/accounts/capabilities': 'updateCapabilities',
  'GET /v1/accounts/features': 'listFeatures',
  'GET /v1/accounts/usage': 'getUsage',
  'GET /v1/accounts/quota': 'getUploadQuota',
  'PUT /v1/accounts/{accountId}/quota': 'setUploadQuota',
  // webhooks
  'POST /v1/webhooks': 'createWebhook',
  'GET /v1/webhooks': 'listWebhooks',
  'GET /v1/webhooks/topics': 'listWebhookTopics',
  'GET /v1/webhooks/{id}': 'getWebhook',
  'DELETE /v1/webhooks/{id}': 'deleteWebhook',
  'POST /v1/webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'GET /v1/webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': 'redeliverWebhookDelivery',
  // pets
  'POST /v1/pets': 'createPet',
  'GET /v1/pets': 'listPets',
  'GET /v1/pets/{petId}': 'getPet',
  'PATCH /v1/pets/{petId}': 'updatePet',
  'DELETE /v1/pets/{petId}': 'deletePet',
  'POST /v1/pets/{petId}/images': 'addPetPhotos',
  'GET /v1/pets/{petId}/images': 'listPetMedia',
  'GET /v1/pets/{petId}/images/{mediaId}/file': 'getPetMediaFile',
  'POST /v1/pets/{petId}/videos': 'addPetVideo',
  'POST /v1/pets/{petId}/respiratory-rate': 'measureRespiratoryRate',
  'GET /v1/pets/{petId}/respiratory-rate/{resultId}': 'getRespiratoryRate',
  'POST /v1/pets/{petId}/weight-estimate': 'estimatePetWeight',
  'POST /v1/pets/{petId}/age-estimate': 'estimatePetAge',
  'POST /v1/pets/{petId}/body-condition-score': 'scoreBodyCondition',
  'POST /v1/pets/{petId}/body-condition-score/reviews': 'requestBodyConditionReview',
  'GET /v1/pets/{petId}/body-condition-score/reviews': 'listBodyConditionReviews',
  'GET /v1/body-condition-score/reviews/{reviewId}': 'getBodyConditionReview',
  'POST /v1/body-condition-score/reviews/{reviewId}/decision': 'decideBodyConditionReview',
  'POST /v1/pets/{petId}/muscle-condition': 'assessMuscleCondition',
  'POST /v1/pets/{petId}/portrait': 'generatePetPortrait',
  'GET /v1/pets/{petId}/care-tips': 'getPetCareTips',
  'GET /v1/pets/{petId}/health-tips': 'getPetHealthTips',
  // reference data
  'GET /v1/breeds': 'listBreeds',
  'GET /v1/breeds/search': 'searchBreeds',
  'GET /v1/breeds/{id}': 'getBreed',
  'GET /v1/breeds/{id}/colours': 'listBreedColours',
  'GET /v1/breeds/{breedId}/facts': 'listBreedFacts',
  'GET /v1/breeds/{breedId}/legislation': 'getBreedLegislation',
  'GET /v1/breeds/bans/countries': 'listLegislationCountries',
  'GET /v1/breeds/bans/country': 'getCountryLegislation',
  'GET /v1/categories': 'listCategories',
  'GET /v1/facts': 'listFacts',
  'GET /v1/facts/random': 'getRandomFacts',
  'GET /v1/facts/{id}': 'getFact',
  'GET /v1/facts/breed/{breedId}': 'listFactsOfBreed',
  'GET /v1/facts/breed/{breedId}/random': 'getRandomFactsOfBreed',
  'GET /v1/facts/species/{speciesId}/random': 'getRandomFactsOfSpecies',
  'GET /v1/health-tips': 'listHealthTips',
  'GET /v1/health-tips/{id}': 'getHealthTip',
  'GET /v1/health-tips/breed/{breedId}': 'listHealthTipsOfBreed',
  'GET /v1/calculators/calories': 'calculateCalories',
  // admin
  'POST /v1/admin/accounts': 'adminCreateAccount',
  'POST /v1/admin/accounts/{id}/keys': 'adminCreateApiKey',
  'DELETE /v1/admin/accounts/{id}/keys/{keyId}': 'adminRevokeApiKey',
  'POST /v1/admin/accounts/{id}/deactivate': 'adminDeactivateAccount',
  'PUT /v1/admin/accounts/{id}/features': 'adminSetAccountFeatures',
  'PUT /v1/admin/accounts/{id}/plan': 'adminSetAccountPlan',
  'GET /v1/admin/accounts/{id}/history': 'adminGetAccountHistory',
  'POST /v1/admin/webhooks': 'adminImportWebhook',
  'GET /v1/admin/streams/{stream}': 'adminReadStream',
  'GET /v1/admin/streams/{stream}/state': 'adminGetStreamState',
  'GET /v1/admin/events': 'adminListEvents',
  'GET /v1/admin/export': 'adminExportEvents',
  'GET /v1/admin/body-condition-score/reviews': 'adminListBodyConditionReviews',
  'GET /v1/admin/ops/status': 'adminGetOpsStatus',
  'POST /v1/admin/operations/verify': 'adminVerifyProjection',
  'GET /v1/admin/operations': 'adminListOperations',
  'GET /v1/admin/operations/{id}': 'adminGetOperation',
  'GET /v1/admin/images/moderation': 'adminListModerationQueue',
};

const VERBS: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'set', PATCH: 'update', DELETE: 'delete' };
const pascal = (segment: string) =>
  segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');

/** The operationId of `METHOD path` (OpenAPI form): from the table, else derived (`getPetsImagesFile`). */
export const operationIdOf = (method: string, path: string): string =>
  OPERATION_IDS[`${method} ${path}`] ??
  `${VERBS[method] ?? method.toLowerCase()}${path
    .replace(/^\/v1\//, '/')
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{'))
    .map(pascal)
    .join('')}`;

/** Gives every documented route its operationId (unless its schema names one). */
export const registerOperationIds = (app: FastifyInstance): void => {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const method = methods.find((name) => name !== 'HEAD')?.toUpperCase();
    const schema = route.schema as { hide?: boolean; operationId?: string } | undefined;
    if (!method || methods.length !== 1 || schema?.hide || schema?.operationId) return;
    route.schema = { ...schema, operationId: operationIdOf(method, route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')) };
  });
};
