import { referenceDecider } from '../../domain/reference-data/decide.ts';
import { REFERENCE_KIND_LIST, referenceStream, type ReferenceKind } from '../../domain/reference-data/record.ts';
import {
  REFERENCE_IMPORT_STREAM,
  referenceImportDecider,
  type ReferenceDataImported,
} from '../../domain/reference-data/import.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { datasetHash, importRecords, loadDataset, REFERENCE_DATA_DIR, type Dataset } from '../../reference-data/dataset.ts';

export const IMPORT_CONTEXT: CommandContext = { accountId: null, requestId: null, actor: 'system:reference-data-import' };

export type ImportProgress = (done: number, total: number) => void;

export type ImportResult =
  | { status: 'unchanged'; datasetHash: string; appended: 0 }
  | { status: 'imported'; datasetHash: string; records: number; appended: number; byType: Record<string, number>; position: bigint | null }
  | { status: 'invalid'; datasetHash: string; problems: string[]; appended: 0 };

/** The last recorded import (one backwards read of one stream). */
export const lastReferenceImport = async (store: EventStore): Promise<ReferenceDataImported['data'] | null> => {
  const [last] = await store.readStream(REFERENCE_IMPORT_STREAM, { direction: 'backwards', maxCount: 1 });
  return last ? (last.data as ReferenceDataImported['data']) : null;
};

/**
 * Imports a validated dataset as events: every record goes through its own decider (published,
 * revised, or nothing when its content hash is unchanged), records that left the dataset are
 * withdrawn, and the import is recorded last — so an interrupted import simply runs again.
 */
export const importDataset = async (
  store: EventStore,
  dataset: Dataset,
  options: { context?: CommandContext; onProgress?: ImportProgress; now?: () => string } = {},
): Promise<Extract<ImportResult, { status: 'imported' }>> => {
  const context = options.context ?? IMPORT_CONTEXT;
  const now = options.now ?? (() => new Date().toISOString());
  const previous = await lastReferenceImport(store);
  const records = importRecords(dataset);
  const recordIds = Object.fromEntries(REFERENCE_KIND_LIST.map((kind) => [kind, [] as string[]])) as Record<ReferenceKind, string[]>;
  for (const record of records) recordIds[record.kind].push(record.id);
  const withdrawals = REFERENCE_KIND_LIST.flatMap((kind) => {
    const current = new Set(recordIds[kind]);
    return (previous?.record_ids[kind] ?? []).filter((id) => !current.has(id)).map((id) => ({ kind, id }));
  });

  const total = records.length + withdrawals.length;
  const byType: Record<string, number> = {};
  let appended = 0;
  let position: bigint | null = null;
  let done = 0;
  const count = (result: { events: { type: string }[]; position: bigint | null }) => {
    for (const event of result.events) byType[event.type] = (byType[event.type] ?? 0) + 1;
    appended += result.events.length;
    if (result.position !== null) position = result.position;
    done += 1;
    if (done % 25 === 0 || done === total) options.onProgress?.(done, total);
  };
  options.onProgress?.(0, total);
  for (const record of records) {
    count(
      await handleCommand(
        store,
        referenceStream(record.kind, record.id),
        referenceDecider(record.kind),
        { type: 'PublishReferenceRecord', id: record.id, content_hash: record.contentHash, record: record.record, now: now() },
        context,
      ),
    );
  }
  for (const { kind, id } of withdrawals) {
    count(await handleCommand(store, referenceStream(kind, id), referenceDecider(kind), { type: 'WithdrawReferenceRecord', id, now: now() }, context));
  }
  const recorded = await handleCommand(
    store,
    REFERENCE_IMPORT_STREAM,
    referenceImportDecider,
    { type: 'RecordReferenceImport', dataset_hash: dataset.hash, record_ids: recordIds, changes: appended, now: now() },
    context,
  );
  return { status: 'imported', datasetHash: dataset.hash, records: records.length, appended, byType, position: recorded.position ?? position };
};

/**
 * The import as a start or the CLI runs it: if the files hash to the dataset recorded last, nothing
 * is read beyond that one event; otherwise the files are parsed and validated (invalid data is not
 * imported at all) and imported record by record.
 */
export const importReferenceData = async (
  store: EventStore,
  options: { dir?: string; force?: boolean; context?: CommandContext; onProgress?: ImportProgress } = {},
): Promise<ImportResult> => {
  const dir = options.dir ?? REFERENCE_DATA_DIR;
  const hash = await datasetHash(dir);
  if (!options.force && (await lastReferenceImport(store))?.dataset_hash === hash) return { status: 'unchanged', datasetHash: hash, appended: 0 };
  const { dataset, problems } = await loadDataset(dir);
  if (!dataset) return { status: 'invalid', datasetHash: hash, problems, appended: 0 };
  return importDataset(store, dataset, options);
};
