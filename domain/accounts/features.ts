/**
 * The features an account can be granted (by an admin, per plan) and switch off for itself
 * as capabilities. This is the one list the whole service uses; GET /v1/accounts/features
 * answers from it. A new account created without an explicit list gets every feature.
 *
 * Which operation needs which feature is declared on the route (`config.feature`), and one
 * authorization hook enforces it.
 */
export const Features = {
  votes: 'Cast, list and delete votes on images',
  favourites: 'Save, list and delete favourite images',
  images: 'Upload, list and delete images',
  image_analysis: 'Image labels and moderation analysis',
  public_requests: 'Ask for an uploaded image to be made public',
  pets: 'Pet profiles with photos and videos',
  body_condition: 'Body condition score of a pet and vet reviews',
  age_estimate: 'Age estimate of a pet from its photos',
  muscle_condition: 'Muscle condition of a pet from its photos',
  weight_estimate: 'Weight estimate of a pet from its photos',
  care_tips: 'Personalised care tips for a pet',
  portraits: 'Generated pet portraits',
  respiratory_rate: 'Resting respiratory rate from a video (early access)',
  calculators: 'Calorie calculator',
  webhooks: 'Webhook endpoints that receive events',
  premium: 'Image search pages of up to 100 images (25 without)',
} as const;

/** The largest image search page without the premium feature (TheCatAPI's limit for a basic key). */
export const BASIC_SEARCH_LIMIT = 25;

export type Feature = keyof typeof Features;

export const ALL_FEATURES = Object.keys(Features) as Feature[];

export const isFeature = (name: string): name is Feature => Object.hasOwn(Features, name);
