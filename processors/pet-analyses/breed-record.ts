import { changeOf, referenceStream } from '../../domain/reference-data/record.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';

/** The breed's record as its own stream has it now (latest published or revised; null if none or withdrawn). */
export const breedRecord = async (store: EventStore, breedId: string): Promise<Record<string, unknown> | null> => {
  let record: Record<string, unknown> | null = null;
  for (const event of await store.readStream(referenceStream('breed', breedId))) {
    const change = changeOf(event.type);
    if (change === 'withdrawn') record = null;
    else if (change) record = (event.data as { record: Record<string, unknown> }).record;
  }
  return record;
};
