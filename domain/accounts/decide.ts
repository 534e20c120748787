import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { ALL_FEATURES, isFeature, type Feature } from './features.ts';
import { CATALOGUE_ACCOUNT_ID, evolveAccount, initialAccountState, type AccountEvent, type AccountState } from './account.ts';

/** A key as the command side generated it: only its hash ever reaches an event. */
export type NewApiKey = { key_id: string; key_hash: string; key_prefix: string };

export type AccountCommand =
  | {
      type: 'OpenAccount';
      account_id: string;
      name: string;
      email: string | null;
      /** Omitted: every feature. */
      features?: string[];
      key: NewApiKey;
      now: string;
    }
  /** The catalogue account (CATALOGUE_ACCOUNT_ID): no key, no feature; opening it again decides nothing. */
  | { type: 'OpenCatalogueAccount'; now: string }
  | { type: 'IssueApiKey'; key: NewApiKey; now: string }
  | { type: 'RevokeApiKey'; key_id: string; now: string }
  | { type: 'DeactivateAccount'; now: string }
  | { type: 'SetFeatures'; features: string[]; now: string }
  | { type: 'SwitchCapabilities'; changes: Record<string, boolean>; now: string }
  | { type: 'SetPlan'; plan: string; now: string };

const checkFeatureNames = (names: readonly string[]): Feature[] => {
  const unknown = names.filter((name) => !isFeature(name));
  if (unknown.length > 0) {
    throw new DomainError('unknown_feature', `unknown feature: ${unknown.join(', ')}`, {
      details: unknown.map((name) => `unknown feature '${name}'; known features: ${ALL_FEATURES.join(', ')}`),
    });
  }
  return [...new Set(names as Feature[])];
};

const requireOpen = (state: AccountState): string => {
  if (state.status === 'none' || state.accountId === null) throw new DomainError('not_found', 'account not found');
  return state.accountId;
};

export const decideAccount = (command: AccountCommand, state: AccountState): AccountEvent[] => {
  switch (command.type) {
    case 'OpenAccount': {
      if (state.status !== 'none') throw new DomainError('conflict', 'account already exists');
      const features = command.features === undefined ? ALL_FEATURES : checkFeatureNames(command.features);
      return [
        {
          type: 'AccountOpened',
          data: {
            account_id: command.account_id,
            name: command.name,
            email: command.email,
            features,
            opened_at: command.now,
          },
        },
        { type: 'ApiKeyIssued', data: { account_id: command.account_id, ...command.key, issued_at: command.now } },
      ];
    }
    case 'OpenCatalogueAccount': {
      if (state.status !== 'none') {
        if (state.kind !== 'catalogue') throw new DomainError('conflict', 'a customer account has the catalogue account id');
        return [];
      }
      return [
        {
          type: 'AccountOpened',
          data: { account_id: CATALOGUE_ACCOUNT_ID, name: 'Catalogue (photo import)', email: null, features: [], opened_at: command.now, kind: 'catalogue' },
        },
      ];
    }
    case 'IssueApiKey': {
      const account_id = requireOpen(state);
      if (state.kind === 'catalogue') throw new DomainError('forbidden', 'the catalogue account takes no API keys: photos come in through the import');
      if (state.status === 'inactive') throw new DomainError('account_inactive', 'account is inactive');
      return [{ type: 'ApiKeyIssued', data: { account_id, ...command.key, issued_at: command.now } }];
    }
    case 'RevokeApiKey': {
      const account_id = requireOpen(state);
      const key = state.keys.get(command.key_id);
      if (!key) throw new DomainError('not_found', 'api key not found');
      if (key.revoked) return [];
      return [{ type: 'ApiKeyRevoked', data: { account_id, key_id: command.key_id, revoked_at: command.now } }];
    }
    case 'DeactivateAccount': {
      const account_id = requireOpen(state);
      if (state.status === 'inactive') return [];
      return [{ type: 'AccountDeactivated', data: { account_id, deactivated_at: command.now } }];
    }
    case 'SetFeatures': {
      const account_id = requireOpen(state);
      const wanted = new Set(checkFeatureNames(command.features));
      const granted = [...wanted].filter((feature) => !state.features.has(feature));
      const revoked = [...state.features].filter((feature) => !wanted.has(feature));
      const events: AccountEvent[] = [];
      if (granted.length > 0) events.push({ type: 'FeaturesGranted', data: { account_id, features: granted } });
      if (revoked.length > 0) events.push({ type: 'FeaturesRevoked', data: { account_id, features: revoked } });
      return events;
    }
    case 'SwitchCapabilities': {
      const account_id = requireOpen(state);
      const names = checkFeatureNames(Object.keys(command.changes));
      const notGranted = names.filter((name) => !state.features.has(name));
      if (notGranted.length > 0) {
        throw new DomainError('feature_not_enabled', `feature not enabled on this account: ${notGranted.join(', ')}`);
      }
      const events: AccountEvent[] = [];
      for (const capability of names) {
        const on = command.changes[capability];
        const isOff = state.switchedOff.has(capability);
        if (on && isOff) events.push({ type: 'CapabilitySwitchedOn', data: { account_id, capability } });
        if (!on && !isOff) events.push({ type: 'CapabilitySwitchedOff', data: { account_id, capability } });
      }
      return events;
    }
    case 'SetPlan': {
      const account_id = requireOpen(state);
      if (state.plan === command.plan) return [];
      return [{ type: 'PlanChanged', data: { account_id, plan: command.plan, changed_at: command.now } }];
    }
  }
};

export const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: initialAccountState,
};
