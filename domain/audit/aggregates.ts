import { foldEvents, type Decider, type Event } from '../decider.ts';
import type { StreamEvents } from '../stream-events.ts';
import { accountDecider } from '../accounts/decide.ts';
import { accountEvents } from '../accounts/account.ts';
import { voteDecider } from '../votes/decide.ts';
import { voteEvents } from '../votes/vote.ts';
import { favouriteClaimDecider, favouriteDecider } from '../favourites/decide.ts';
import { favouriteEvents } from '../favourites/favourite.ts';
import { favouriteClaimEvents } from '../favourites/claim.ts';
import { webhookAttemptsDecider, webhookDeliveryDecider, webhookEndpointDecider, webhookRegistryDecider } from '../webhooks/decide.ts';
import { webhookEndpointEvents } from '../webhooks/endpoint.ts';
import { webhookRegistryEvents } from '../webhooks/registry.ts';
import { webhookAttemptsEvents, webhookDeliveryEvents } from '../webhooks/delivery.ts';
import { referenceDecider } from '../reference-data/decide.ts';
import { referenceImportDecider, referenceImportEvents } from '../reference-data/import.ts';
import { REFERENCE_KIND_LIST, referenceEvents } from '../reference-data/record.ts';
import { imageDecider } from '../images/decide.ts';
import { imageEvents } from '../images/image.ts';
import { quotaDecider, quotaEvents } from '../quota/quota.ts';
import { petDecider } from '../pets/decide.ts';
import { petEvents } from '../pets/pet.ts';
import { petAnalysisDecider, petAnalysisEvents } from '../pet-analyses/analysis.ts';
import { respiratoryRateDecider, respiratoryRateEvents } from '../pet-analyses/respiratory-rate.ts';
import { bcsReviewDecider, bcsReviewEvents } from '../pet-analyses/bcs-review.ts';

/** What a point-in-time state needs of a decider: its own fold, over the events of its streams. */
export type Fold = { initialState: () => unknown; stateAfter: (events: readonly Event[]) => unknown };

/** An event of another type than the aggregate's (none is written by its decider) is passed over. */
const fold = <S, C, E extends Event>(decider: Decider<S, C, E>, events: StreamEvents<E>): Fold => ({
  initialState: decider.initialState,
  stateAfter: (all) => foldEvents(decider, all.filter((event): event is E => events.isType(event.type))),
});

/**
 * The decider of every stream category (`vote-123` → `vote`): an auditor's point-in-time state is
 * folded by the same `evolve` the command side uses, so it is the state a command would have seen.
 * A new aggregate joins by adding its category here (the unit test checks every decider is listed).
 */
export const AGGREGATE_FOLDS: Readonly<Record<string, Fold>> = {
  account: fold(accountDecider, accountEvents),
  vote: fold(voteDecider, voteEvents),
  favourite: fold(favouriteDecider, favouriteEvents),
  favouriteclaim: fold(favouriteClaimDecider, favouriteClaimEvents),
  webhook: fold(webhookEndpointDecider, webhookEndpointEvents),
  webhookregistry: fold(webhookRegistryDecider, webhookRegistryEvents),
  webhookdelivery: fold(webhookDeliveryDecider, webhookDeliveryEvents),
  webhookattempts: fold(webhookAttemptsDecider, webhookAttemptsEvents),
  referencedata: fold(referenceImportDecider, referenceImportEvents),
  image: fold(imageDecider, imageEvents),
  quota: fold(quotaDecider, quotaEvents),
  pet: fold(petDecider, petEvents),
  petanalysis: fold(petAnalysisDecider, petAnalysisEvents),
  respiratoryrate: fold(respiratoryRateDecider, respiratoryRateEvents),
  bcsreview: fold(bcsReviewDecider, bcsReviewEvents),
  ...Object.fromEntries(REFERENCE_KIND_LIST.map((kind) => [kind, fold(referenceDecider(kind), referenceEvents(kind))])),
};

export const foldOf = (category: string): Fold | undefined => (Object.hasOwn(AGGREGATE_FOLDS, category) ? AGGREGATE_FOLDS[category] : undefined);

/**
 * A state as plain JSON: Sets become sorted arrays, Maps objects, bigints strings, Dates ISO
 * strings — the deciders keep Sets and Maps, which JSON.stringify would turn into `{}`.
 */
export const plainState = (value: unknown): unknown => {
  if (value instanceof Set) return [...value].map(plainState).sort((a, b) => String(a).localeCompare(String(b)));
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, inner]) => [String(key), plainState(inner)]));
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainState);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plainState(inner)]));
  return value;
};
