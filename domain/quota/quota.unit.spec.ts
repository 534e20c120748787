import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { foldEvents } from '../decider.ts';
import { quotaDecider, quotaView, type QuotaEvent } from './quota.ts';

const spec = deciderSpec(quotaDecider);
const now = '2026-11-20T10:00:00.000Z';
const reserved = (imageId: string, month = '2026-11'): QuotaEvent => ({
  type: 'UploadQuotaReserved',
  data: { account_id: 'acc', image_id: imageId, month, reserved_at: now },
});
const reserve = (imageId: string) => ({ type: 'ReserveUpload' as const, account_id: 'acc', image_id: imageId, default_quota: 2, now });

describe('upload quota decider', () => {
  it('reserves while under the default quota', () => spec.given([reserved('a')]).when(reserve('b')).then([reserved('b')]));
  it('refuses once the month is used up', () => spec.given([reserved('a'), reserved('b')]).when(reserve('c')).thenThrows('upload_quota_exceeded'));
  it('counts only the current month', () =>
    spec.given([reserved('a', '2026-10'), reserved('b', '2026-10')]).when(reserve('c')).then([reserved('c')]));
  it('an account quota replaces the default', () => {
    const set: QuotaEvent = { type: 'UploadQuotaSet', data: { account_id: 'acc', quota: 1, set_at: now } };
    spec.given([set, reserved('a')]).when(reserve('b')).thenThrows('upload_quota_exceeded');
    spec.given([set]).when(reserve('a')).then([reserved('a')]);
  });
  it('a released unit can be used again', () =>
    spec
      .given([reserved('a'), reserved('b'), { type: 'UploadQuotaReleased', data: { account_id: 'acc', image_id: 'b', month: '2026-11', released_at: now } }])
      .when(reserve('c'))
      .then([reserved('c')]));
  it('refuses a quota that is not a non-negative integer', () => {
    spec.given([]).when({ type: 'SetQuota', account_id: 'acc', quota: -1, now }).thenThrows('validation_failed');
    spec.given([]).when({ type: 'SetQuota', account_id: 'acc', quota: 1.5, now }).thenThrows('validation_failed');
  });
  it('views quota, usage and remaining of this month', () => {
    const state = foldEvents(quotaDecider, [reserved('a'), reserved('x', '2026-10')]);
    expect(quotaView(state, 5, now)).toEqual({ quota: 5, usage: 1, remaining: 4 });
  });
});
