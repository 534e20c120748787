import type { Decider, Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';
import type { ReferenceKind } from './record.ts';

/**
 * The import itself is recorded in one stream: after every record of a dataset went through its
 * own decider, ReferenceDataImported names the dataset (its hash) and the ids it held. A start
 * that finds the same hash there knows nothing changed without reading a single record stream;
 * the ids tell the next import which records left the dataset (to be withdrawn).
 */
export const REFERENCE_IMPORT_STREAM = 'referencedata-import';

export type ReferenceDataImported = Event<
  'ReferenceDataImported',
  {
    dataset_hash: string;
    record_ids: Partial<Record<ReferenceKind, string[]>>;
    counts: Partial<Record<ReferenceKind, number>>;
    /** Record events this import appended (published, revised, withdrawn). */
    changes: number;
    imported_at: string;
  }
>;
export type ReferenceImportEvent = ReferenceDataImported;

/** The events of `referencedata-…` streams, told apart where they are read back. */
export const referenceImportEvents = streamEvents<ReferenceImportEvent>('referencedata', { ReferenceDataImported: true });

export type ReferenceImportState = { datasetHash: string | null; recordIds: Partial<Record<ReferenceKind, string[]>> };

export type RecordReferenceImport = {
  type: 'RecordReferenceImport';
  dataset_hash: string;
  record_ids: Partial<Record<ReferenceKind, string[]>>;
  changes: number;
  now: string;
};

export const referenceImportDecider: Decider<ReferenceImportState, RecordReferenceImport, ReferenceImportEvent> = {
  initialState: () => ({ datasetHash: null, recordIds: {} }),
  evolve: (_state, event) => ({ datasetHash: event.data.dataset_hash, recordIds: event.data.record_ids }),
  decide: (command, state) => {
    if (state.datasetHash === command.dataset_hash && command.changes === 0) return [];
    const counts = Object.fromEntries(Object.entries(command.record_ids).map(([kind, ids]) => [kind, ids?.length ?? 0]));
    return [
      {
        type: 'ReferenceDataImported',
        data: {
          dataset_hash: command.dataset_hash,
          record_ids: command.record_ids,
          counts,
          changes: command.changes,
          imported_at: command.now,
        },
      },
    ];
  },
};
