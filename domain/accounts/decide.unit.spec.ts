import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { accountDecider } from './decide.ts';
import { ALL_FEATURES } from './features.ts';
import type { AccountEvent } from './account.ts';

const spec = deciderSpec(accountDecider);
const now = '2026-01-01T00:00:00.000Z';
const key = { key_id: 'k1', key_hash: 'h1', key_prefix: 'live_abcd' };
const opened = (features = ALL_FEATURES): AccountEvent[] => [
  { type: 'AccountOpened', data: { account_id: 'a1', name: 'A', email: null, features, opened_at: now } },
  { type: 'ApiKeyIssued', data: { account_id: 'a1', ...key, issued_at: now } },
];

describe('account decider', () => {
  it('opens an account with every feature by default and a first key (hash only)', () =>
    spec.given([]).when({ type: 'OpenAccount', account_id: 'a1', name: 'A', email: null, key, now }).then(opened()));
  it('opens an account with the features asked for, refusing unknown names', () => {
    spec.given([]).when({ type: 'OpenAccount', account_id: 'a1', name: 'A', email: null, features: ['votes'], key, now }).then(opened(['votes']));
    spec.given([]).when({ type: 'OpenAccount', account_id: 'a1', name: 'A', email: null, features: ['teleport'], key, now }).thenThrows('unknown_feature');
  });
  it('refuses to open twice', () =>
    spec.given(opened()).when({ type: 'OpenAccount', account_id: 'a1', name: 'A', email: null, key, now }).thenThrows('conflict'));
  it('deactivates once', () => {
    spec.given(opened()).when({ type: 'DeactivateAccount', now }).then([{ type: 'AccountDeactivated', data: { account_id: 'a1', deactivated_at: now } }]);
    spec.given([...opened(), { type: 'AccountDeactivated', data: { account_id: 'a1', deactivated_at: now } }]).when({ type: 'DeactivateAccount', now }).thenNothing();
    spec.given([]).when({ type: 'DeactivateAccount', now }).thenThrows('not_found');
  });
  it('sets features as grants and revocations of the difference', () =>
    spec.given(opened(['votes', 'favourites'])).when({ type: 'SetFeatures', features: ['votes', 'calculators'], now }).then([
      { type: 'FeaturesGranted', data: { account_id: 'a1', features: ['calculators'] } },
      { type: 'FeaturesRevoked', data: { account_id: 'a1', features: ['favourites'] } },
    ]));
  it('switches capabilities only among granted features', () => {
    spec.given(opened(['votes'])).when({ type: 'SwitchCapabilities', changes: { votes: false }, now }).then([
      { type: 'CapabilitySwitchedOff', data: { account_id: 'a1', capability: 'votes' } },
    ]);
    spec.given(opened(['votes'])).when({ type: 'SwitchCapabilities', changes: { votes: true }, now }).thenNothing();
    spec.given(opened(['votes'])).when({ type: 'SwitchCapabilities', changes: { calculators: false }, now }).thenThrows('feature_not_enabled');
    spec.given(opened(['votes'])).when({ type: 'SwitchCapabilities', changes: { warp: false }, now }).thenThrows('unknown_feature');
  });
  it('sets a plan once per change, on existing accounts only', () => {
    const changed: AccountEvent = { type: 'PlanChanged', data: { account_id: 'a1', plan: 'pro', changed_at: now } };
    spec.given(opened()).when({ type: 'SetPlan', plan: 'pro', now }).then([changed]);
    spec.given([...opened(), changed]).when({ type: 'SetPlan', plan: 'pro', now }).thenNothing();
    spec.given([]).when({ type: 'SetPlan', plan: 'pro', now }).thenThrows('not_found');
  });
  it('revokes a key once and refuses unknown keys', () => {
    spec.given(opened()).when({ type: 'RevokeApiKey', key_id: 'k1', now }).then([{ type: 'ApiKeyRevoked', data: { account_id: 'a1', key_id: 'k1', revoked_at: now } }]);
    spec.given(opened()).when({ type: 'RevokeApiKey', key_id: 'nope', now }).thenThrows('not_found');
  });
});
