import { createHash } from 'node:crypto';
import type { VoteCast } from '../domain/votes/vote.ts';
import type { FavouriteAdded } from '../domain/favourites/favourite.ts';
import type { WebhookTopic } from '../domain/webhooks/topics.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { topicFor } from '../infrastructure/bus/envelope.ts';
import { voteFromCast } from '../contracts/votes.ts';
import { favouriteResource } from '../contracts/favourites.ts';
import type { ImageLabelled, ImageUploaded, ImageValidated } from '../domain/images/image.ts';
import { imageWebhookResource, processedWebhookResource, labelledWebhookResource } from '../contracts/image-webhooks.ts';
import { respiratoryRateResource } from '../contracts/respiratory-rate.ts';
import { unknownImage } from '../contracts/image-resource.ts';
import type { EmbeddedImages } from '../http/image-views.ts';
import { RESPIRATORY_RATE_CATEGORY, type RespiratoryRateCompleted } from '../domain/pet-analyses/respiratory-rate.ts';
import { BCS_REVIEW_CATEGORY, bcsReviewViewOf, type BcsReviewEvent, type BcsReviewRequested } from '../domain/pet-analyses/bcs-review.ts';

/**
 * Which domain event becomes which webhook event, in one table. A row names the domain event
 * type, the bus topic it arrives on, the webhook event name, whose account it is, and the resource
 * the body carries (as the API returns it). Images, pets and analyses add their rows here.
 */
export type WebhookEventMapping = {
  domainEvent: string;
  topic: string;
  webhookEvent: WebhookTopic;
  accountId: (event: RecordedEvent) => string | null;
  /**
   * `publicBaseUrl`: PUBLIC_BASE_URL ('' when unset), for the urls the resource carries; `images`:
   * the images the batch's events embed (`embedsImage`), each as its account sees it.
   */
  resource: (event: RecordedEvent, publicBaseUrl: string, images: EmbeddedImages) => Record<string, unknown>;
  /** The image the resource embeds (as the API's answer does), resolved for the whole batch at once. */
  embedsImage?: (event: RecordedEvent) => string;
  countryCode?: (event: RecordedEvent) => string | null;
};

const dataOf = <E extends { data: object }>(event: RecordedEvent) => event.data as unknown as E['data'];

export const WEBHOOK_EVENT_MAPPINGS: readonly WebhookEventMapping[] = [
  {
    domainEvent: 'VoteCast',
    topic: topicFor('vote'),
    webhookEvent: 'vote.created',
    accountId: (event) => dataOf<VoteCast>(event).account_id,
    embedsImage: (event) => dataOf<VoteCast>(event).image_id,
    resource: (event, _baseUrl, images) => {
      const vote = dataOf<VoteCast>(event);
      return voteFromCast(vote, images.get(vote.account_id, vote.image_id));
    },
    countryCode: (event) => dataOf<VoteCast>(event).country_code,
  },
  {
    domainEvent: 'FavouriteAdded',
    topic: topicFor('favourite'),
    webhookEvent: 'favourite.created',
    accountId: (event) => dataOf<FavouriteAdded>(event).account_id,
    embedsImage: (event) => dataOf<FavouriteAdded>(event).image_id,
    resource: (event, _baseUrl, images) => {
      const favourite = dataOf<FavouriteAdded>(event);
      return favouriteResource(favourite, { image: images.get(favourite.account_id, favourite.image_id) });
    },
    countryCode: (event) => dataOf<FavouriteAdded>(event).country_code,
  },
  {
    domainEvent: 'ImageUploaded',
    topic: topicFor('image'),
    webhookEvent: 'image.uploaded',
    accountId: (event) => dataOf<ImageUploaded>(event).account_id,
    resource: (event, publicBaseUrl) => imageWebhookResource(dataOf<ImageUploaded>(event), publicBaseUrl),
  },
  {
    domainEvent: 'ImageValidated',
    topic: topicFor('image'),
    webhookEvent: 'image.processed',
    accountId: (event) => dataOf<ImageValidated>(event).account_id,
    resource: (event) => processedWebhookResource(dataOf<ImageValidated>(event)),
  },
  {
    domainEvent: 'ImageLabelled',
    topic: topicFor('image'),
    webhookEvent: 'image.labels_created',
    accountId: (event) => dataOf<ImageLabelled>(event).account_id,
    resource: (event) => labelledWebhookResource(dataOf<ImageLabelled>(event)),
  },
  {
    domainEvent: 'RespiratoryRateCompleted',
    topic: topicFor(RESPIRATORY_RATE_CATEGORY),
    webhookEvent: 'pet.respiratory_rate.completed',
    accountId: (event) => dataOf<RespiratoryRateCompleted>(event).account_id,
    resource: (event) => respiratoryRateResource(dataOf<RespiratoryRateCompleted>(event)),
  },
  // pet.bcs.*: the review (it carries the pet's sub_id and external_owner_id).
  {
    domainEvent: 'BcsReviewRequested',
    topic: topicFor(BCS_REVIEW_CATEGORY),
    webhookEvent: 'pet.bcs.review_requested',
    accountId: (event) => dataOf<BcsReviewRequested>(event).account_id,
    resource: (event) => bcsReviewViewOf(event as unknown as BcsReviewEvent),
  },
  {
    domainEvent: 'BcsReviewed',
    topic: topicFor(BCS_REVIEW_CATEGORY),
    webhookEvent: 'pet.bcs.reviewed',
    accountId: (event) => dataOf<BcsReviewRequested>(event).account_id,
    resource: (event) => bcsReviewViewOf(event as unknown as BcsReviewEvent),
  },
];

export const mappingFor = (domainEventType: string): WebhookEventMapping | undefined =>
  WEBHOOK_EVENT_MAPPINGS.find((mapping) => mapping.domainEvent === domainEventType);

export const mappedTopics = (): string[] => [...new Set(WEBHOOK_EVENT_MAPPINGS.map((mapping) => mapping.topic))];

/** No image resolved: each embedded image is its id alone. */
export const NO_IMAGES: EmbeddedImages = { get: (_accountId, imageId) => unknownImage(imageId), missing: [] };

/**
 * The delivery body: the resource plus `_metadata` (event type, time, country where known, and the
 * domain event id — stable across retries and redeliveries, for receivers to de-duplicate on).
 */
export const webhookPayload = (mapping: WebhookEventMapping, event: RecordedEvent, publicBaseUrl = '', images: EmbeddedImages = NO_IMAGES): Record<string, unknown> => {
  const countryCode = mapping.countryCode?.(event) ?? null;
  return {
    ...mapping.resource(event, publicBaseUrl, images),
    _metadata: {
      event_type: mapping.webhookEvent,
      event_id: event.id,
      timestamp: event.metadata.timestamp,
      ...(countryCode ? { country_code: countryCode } : {}),
    },
  };
};

/**
 * One delivery per (event, endpoint): the same event seen twice maps to the same delivery stream.
 * 32 hex digits: the first 12 of the event's id — a UUIDv7's milliseconds, so delivery streams are
 * named in time order and the embedded event store's stream index grows at its end instead of at
 * random places (≈ 35 % less per append on a log of 60,000 deliveries) — then 20 of the hash of
 * (event, endpoint). An event id that does not start with 12 hex digits gets the hash alone.
 */
export const deliveryIdFor = (eventId: string, webhookId: string): string => {
  const hash = createHash('sha256').update(`${eventId}\u0000${webhookId}`).digest('hex');
  const time = eventId.replace('-', '').slice(0, 12).toLowerCase();
  return /^[0-9a-f]{12}$/.test(time) ? time + hash.slice(0, 20) : hash.slice(0, 32);
};
