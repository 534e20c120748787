/**
 * The webhook event names a customer can subscribe to (GET /v1/webhooks/topics). The spec's seven
 * plus `pet.respiratory_rate.completed`. Names in an endpoint's `enabled_events` are not checked
 * against this list: an unknown name is accepted and simply never fires.
 */
export const WEBHOOK_TOPICS = [
  'pet.bcs.review_requested',
  'pet.bcs.reviewed',
  'image.uploaded',
  'image.processed',
  'image.labels_created',
  'vote.created',
  'favourite.created',
  'pet.respiratory_rate.completed',
] as const;

export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

export const WEBHOOK_TOPIC_DESCRIPTIONS: Record<WebhookTopic, string> = {
  'pet.bcs.review_requested': 'a body condition score has gone to a vet',
  'pet.bcs.reviewed': 'a vet has completed or rejected the review',
  'image.uploaded': 'an image upload succeeded',
  'image.processed': 'an image finished validation',
  'image.labels_created': 'labels were generated for an image',
  'vote.created': 'a vote was recorded',
  'favourite.created': 'a favourite was recorded',
  'pet.respiratory_rate.completed': 'a respiratory-rate result is ready',
};
