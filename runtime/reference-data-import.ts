import type { Logger } from 'pino';
import type { Adapters } from '../infrastructure/adapters.ts';
import { importReferenceData } from '../command-api/handlers/reference-data.ts';

/**
 * The import a start runs: nothing but one hash and one event read when the data files are the
 * ones imported last; otherwise the changed records are appended (resolves true: the caller then
 * waits for the read models to hold them before it listens). Invalid data is logged and not
 * imported: the service keeps serving what it had.
 */
export const importReferenceDataOnStart = async (adapters: Adapters, logger: Logger): Promise<boolean> => {
  const started = Date.now();
  const result = await importReferenceData(adapters.eventStore);
  if (result.status === 'invalid') {
    logger.error({ problems: result.problems.slice(0, 50), count: result.problems.length }, 'reference data is invalid: not imported');
    return false;
  }
  if (result.status === 'unchanged') {
    logger.debug({ dataset: result.datasetHash.slice(0, 12) }, 'reference data unchanged');
    return false;
  }
  logger.info(
    { dataset: result.datasetHash.slice(0, 12), records: result.records, appended: result.appended, ms: Date.now() - started },
    'reference data imported',
  );
  return result.appended > 0;
};
