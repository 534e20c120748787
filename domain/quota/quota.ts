/**
 * The monthly image-upload quota of one account, on its own stream `quota-<accountId>`. Every
 * upload reserves one unit here before anything is stored, appended with the revision the
 * decision was made on: two uploads racing for the last unit cannot both succeed (the loser's
 * append fails with a wrong revision, its retry sees the quota used up).
 *
 * Months are calendar months in UTC (`2026-11`). Child images cropped by auto-crop do not count.
 */
import type { Event } from '../decider.ts';
import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

export const quotaStream = (accountId: string): string => `quota-${accountId}`;

export type UploadQuotaSet = Event<'UploadQuotaSet', { account_id: string; quota: number; set_at: string }>;
export type UploadQuotaReserved = Event<'UploadQuotaReserved', { account_id: string; image_id: string; month: string; reserved_at: string }>;
/** An upload that reserved a unit and then failed (e.g. the blob store was down) gives it back. */
export type UploadQuotaReleased = Event<'UploadQuotaReleased', { account_id: string; image_id: string; month: string; released_at: string }>;
export type QuotaEvent = UploadQuotaSet | UploadQuotaReserved | UploadQuotaReleased;

/** The events of `quota-…` streams, told apart where they are read back. */
export const quotaEvents = streamEvents<QuotaEvent>('quota', { UploadQuotaSet: true, UploadQuotaReserved: true, UploadQuotaReleased: true });

export type QuotaState = {
  /** null: the deployment's default applies. */
  quota: number | null;
  /** Uploads per month. */
  usage: Record<string, number>;
};

export const monthOf = (timestamp: string): string => timestamp.slice(0, 7);

export const initialQuotaState = (): QuotaState => ({ quota: null, usage: {} });

export const evolveQuota = (state: QuotaState, event: QuotaEvent): QuotaState => {
  switch (event.type) {
    case 'UploadQuotaSet':
      return { ...state, quota: event.data.quota };
    case 'UploadQuotaReserved':
      return { ...state, usage: { ...state.usage, [event.data.month]: (state.usage[event.data.month] ?? 0) + 1 } };
    case 'UploadQuotaReleased':
      return { ...state, usage: { ...state.usage, [event.data.month]: Math.max(0, (state.usage[event.data.month] ?? 0) - 1) } };
  }
};

export type QuotaCommand =
  | { type: 'ReserveUpload'; account_id: string; image_id: string; default_quota: number; now: string }
  | { type: 'ReleaseUpload'; account_id: string; image_id: string; month: string; now: string }
  | { type: 'SetQuota'; account_id: string; quota: number; now: string };

export const MAX_QUOTA = 10_000_000;

export const decideQuota = (command: QuotaCommand, state: QuotaState): QuotaEvent[] => {
  switch (command.type) {
    case 'ReserveUpload': {
      const month = monthOf(command.now);
      const quota = state.quota ?? command.default_quota;
      const used = state.usage[month] ?? 0;
      if (used >= quota) {
        throw new DomainError('upload_quota_exceeded', `the monthly upload quota of ${quota} images is used up`, {
          extra: { quota, usage: used, remaining: 0 },
        });
      }
      return [{ type: 'UploadQuotaReserved', data: { account_id: command.account_id, image_id: command.image_id, month, reserved_at: command.now } }];
    }
    case 'ReleaseUpload':
      return [
        { type: 'UploadQuotaReleased', data: { account_id: command.account_id, image_id: command.image_id, month: command.month, released_at: command.now } },
      ];
    case 'SetQuota':
      if (!Number.isInteger(command.quota) || command.quota < 0 || command.quota > MAX_QUOTA) {
        throw new DomainError('validation_failed', 'imageUploadQuota must be an integer 0..10000000', {
          details: ['imageUploadQuota must be an integer between 0 and 10000000'],
        });
      }
      if (state.quota === command.quota) return [];
      return [{ type: 'UploadQuotaSet', data: { account_id: command.account_id, quota: command.quota, set_at: command.now } }];
  }
};

export const quotaDecider: Decider<QuotaState, QuotaCommand, QuotaEvent> = {
  decide: decideQuota,
  evolve: evolveQuota,
  initialState: initialQuotaState,
};

/** What GET /accounts/quota answers for a month. */
export const quotaView = (state: QuotaState, defaultQuota: number, now: string): { quota: number; usage: number; remaining: number } => {
  const quota = state.quota ?? defaultQuota;
  const usage = state.usage[monthOf(now)] ?? 0;
  return { quota, usage, remaining: Math.max(0, quota - usage) };
};
