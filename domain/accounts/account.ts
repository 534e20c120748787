import type { Event } from '../decider.ts';
import type { Feature } from './features.ts';
import { streamEvents } from '../stream-events.ts';

export const accountStream = (accountId: string): string => `account-${accountId}`;

/**
 * `customer`: an account of the API's users (keys, quota). `catalogue`: the system account the
 * photo import uploads as (fixed id CATALOGUE_ACCOUNT_ID, no keys, no quota): its images may be made
 * public without a request (domain/images/catalogue.ts).
 */
export type AccountKind = 'customer' | 'catalogue';

/** The id of the catalogue account (random account ids are 12 characters: it cannot collide). */
export const CATALOGUE_ACCOUNT_ID = 'catalogue';

export type AccountOpened = Event<
  'AccountOpened',
  /** `kind` absent: a customer account. */
  { account_id: string; name: string; email: string | null; features: Feature[]; opened_at: string; kind?: AccountKind }
>;
export type ApiKeyIssued = Event<
  'ApiKeyIssued',
  { account_id: string; key_id: string; key_hash: string; key_prefix: string; issued_at: string }
>;
export type ApiKeyRevoked = Event<'ApiKeyRevoked', { account_id: string; key_id: string; revoked_at: string }>;
export type AccountDeactivated = Event<'AccountDeactivated', { account_id: string; deactivated_at: string }>;
export type FeaturesGranted = Event<'FeaturesGranted', { account_id: string; features: Feature[] }>;
export type FeaturesRevoked = Event<'FeaturesRevoked', { account_id: string; features: Feature[] }>;
export type CapabilitySwitchedOff = Event<'CapabilitySwitchedOff', { account_id: string; capability: Feature }>;
export type CapabilitySwitchedOn = Event<'CapabilitySwitchedOn', { account_id: string; capability: Feature }>;
/** The account's plan (names the request rate limit it gets; see RATE_LIMIT_PLANS). */
export type PlanChanged = Event<'PlanChanged', { account_id: string; plan: string; changed_at: string }>;

export type AccountEvent =
  | AccountOpened
  | ApiKeyIssued
  | ApiKeyRevoked
  | AccountDeactivated
  | FeaturesGranted
  | FeaturesRevoked
  | CapabilitySwitchedOff
  | CapabilitySwitchedOn
  | PlanChanged;

/** The events of `account-…` streams, told apart where they are read back. */
export const accountEvents = streamEvents<AccountEvent>('account', { AccountOpened: true, ApiKeyIssued: true, ApiKeyRevoked: true, AccountDeactivated: true, FeaturesGranted: true, FeaturesRevoked: true, CapabilitySwitchedOff: true, CapabilitySwitchedOn: true, PlanChanged: true });

export type AccountState = {
  status: 'none' | 'active' | 'inactive';
  accountId: string | null;
  kind: AccountKind;
  features: ReadonlySet<Feature>;
  switchedOff: ReadonlySet<Feature>;
  keys: ReadonlyMap<string, { revoked: boolean }>;
  plan: string | null;
};

export const initialAccountState = (): AccountState => ({
  status: 'none',
  accountId: null,
  kind: 'customer',
  features: new Set(),
  switchedOff: new Set(),
  keys: new Map(),
  plan: null,
});

const withSet = <T>(set: ReadonlySet<T>, add: readonly T[], remove: readonly T[] = []): Set<T> => {
  const next = new Set(set);
  for (const item of add) next.add(item);
  for (const item of remove) next.delete(item);
  return next;
};

export const evolveAccount = (state: AccountState, event: AccountEvent): AccountState => {
  switch (event.type) {
    case 'AccountOpened':
      return { ...state, status: 'active', accountId: event.data.account_id, kind: event.data.kind ?? 'customer', features: new Set(event.data.features) };
    case 'ApiKeyIssued':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: false }) };
    case 'ApiKeyRevoked':
      return { ...state, keys: new Map(state.keys).set(event.data.key_id, { revoked: true }) };
    case 'AccountDeactivated':
      return { ...state, status: 'inactive' };
    case 'FeaturesGranted':
      return { ...state, features: withSet(state.features, event.data.features) };
    case 'FeaturesRevoked':
      return { ...state, features: withSet(state.features, [], event.data.features) };
    case 'CapabilitySwitchedOff':
      return { ...state, switchedOff: withSet(state.switchedOff, [event.data.capability]) };
    case 'CapabilitySwitchedOn':
      return { ...state, switchedOff: withSet(state.switchedOff, [], [event.data.capability]) };
    case 'PlanChanged':
      return { ...state, plan: event.data.plan };
  }
};
