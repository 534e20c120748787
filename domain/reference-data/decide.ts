import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import {
  evolveReference,
  initialReferenceState,
  REFERENCE_KINDS,
  type ReferenceEvent,
  type ReferenceKind,
  type ReferenceRecordContent,
  type ReferenceState,
} from './record.ts';

export type ReferenceCommand =
  | { type: 'PublishReferenceRecord'; id: string; content_hash: string; record: ReferenceRecordContent; now: string }
  | { type: 'WithdrawReferenceRecord'; id: string; now: string };

/**
 * Publish: a new (or withdrawn) record is published, a changed one revised, an unchanged one
 * (same content hash) yields nothing. Withdraw: only a published record is withdrawn.
 */
export const decideReference =
  (kind: ReferenceKind) =>
  (command: ReferenceCommand, state: ReferenceState): ReferenceEvent<string>[] => {
    const name = REFERENCE_KINDS[kind];
    switch (command.type) {
      case 'PublishReferenceRecord': {
        if (!command.content_hash) throw new DomainError('validation_failed', 'a reference record needs a content hash');
        if (state.status === 'published') {
          if (state.contentHash === command.content_hash) return [];
          return [
            {
              type: `${name}Revised`,
              data: {
                id: command.id,
                content_hash: command.content_hash,
                previous_hash: state.contentHash,
                record: command.record,
                revised_at: command.now,
              },
            },
          ];
        }
        return [
          {
            type: `${name}Published`,
            data: { id: command.id, content_hash: command.content_hash, record: command.record, published_at: command.now },
          },
        ];
      }
      case 'WithdrawReferenceRecord':
        if (state.status !== 'published') return [];
        return [{ type: `${name}Withdrawn`, data: { id: command.id, content_hash: state.contentHash, withdrawn_at: command.now } }];
    }
  };

export const referenceDecider = (kind: ReferenceKind): Decider<ReferenceState, ReferenceCommand, ReferenceEvent<string>> => ({
  decide: decideReference(kind),
  evolve: evolveReference,
  initialState: initialReferenceState,
});
