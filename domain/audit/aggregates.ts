import type { Decider, Event } from '../decider.ts';
import { accountDecider } from '../accounts/decide.ts';
import { voteDecider } from '../votes/decide.ts';
import { favouriteClaimDecider, favouriteDecider } from '../favourites/decide.ts';
import { webhookAttemptsDecider, webhookDeliveryDecider, webhookEndpointDecider, webhookRegistryDecider } from '../webhooks/decide.ts';
import { referenceDecider } from '../reference-data/decide.ts';
import { referenceImportDecider } from '../reference-data/import.ts';
import { REFERENCE_KIND_LIST } from '../reference-data/record.ts';
import { imageDecider } from '../images/decide.ts';
import { quotaDecider } from '../quota/quota.ts';
import { petDecider } from '../pets/decide.ts';
import { petAnalysisDecider } from '../pet-analyses/analysis.ts';
import { respiratoryRateDecider } from '../pet-analyses/respiratory-rate.ts';
import { bcsReviewDecider } from '../pet-analyses/bcs-review.ts';

/** What a point-in-time state needs of a decider: its own fold. */
export type Fold = Pick<Decider<unknown, never, Event>, 'evolve' | 'initialState'>;

const fold = <S, C, E extends Event>(decider: Decider<S, C, E>): Fold => decider as unknown as Fold;

/**
 * The decider of every stream category (`vote-123` → `vote`): an auditor's point-in-time state is
 * folded by the same `evolve` the command side uses, so it is the state a command would have seen.
 * A new aggregate joins by adding its category here (the unit test checks every decider is listed).
 */
export const AGGREGATE_FOLDS: Readonly<Record<string, Fold>> = {
  account: fold(accountDecider),
  vote: fold(voteDecider),
  favourite: fold(favouriteDecider),
  favouriteclaim: fold(favouriteClaimDecider),
  webhook: fold(webhookEndpointDecider),
  webhookregistry: fold(webhookRegistryDecider),
  webhookdelivery: fold(webhookDeliveryDecider),
  webhookattempts: fold(webhookAttemptsDecider),
  referencedata: fold(referenceImportDecider),
  image: fold(imageDecider),
  quota: fold(quotaDecider),
  pet: fold(petDecider),
  petanalysis: fold(petAnalysisDecider),
  respiratoryrate: fold(respiratoryRateDecider),
  bcsreview: fold(bcsReviewDecider),
  ...Object.fromEntries(REFERENCE_KIND_LIST.map((kind) => [kind, fold(referenceDecider(kind))])),
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
