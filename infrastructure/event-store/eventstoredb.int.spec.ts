import { describe } from 'vitest';
import { eventStoreContract } from './event-store.contract.ts';
import { eventStoreDbEventStore } from './eventstoredb.ts';

/**
 * Runs when EVENTSTORE_URL is set, e.g. with `docker compose up eventstore` and
 * EVENTSTORE_URL='esdb://127.0.0.1:2113?tls=false' npm test. EventStoreDB cannot be installed on
 * the CI machine here, so CI does not run this suite.
 */
const url = process.env.EVENTSTORE_URL;
describe.skipIf(!url)('EventStoreDB event store', () => {
  eventStoreContract('EventStoreDB', async () => eventStoreDbEventStore(url as string));
});
