import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe } from 'vitest';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { eventStoreContract } from './event-store.contract.ts';
import { eventStoreDbEventStore } from './eventstoredb.ts';

/**
 * The EventStoreDB adapter against the shared contract. Runs when EVENTSTORE_URL is set, e.g.
 *   docker compose up -d eventstore
 *   EVENTSTORE_URL='esdb://127.0.0.1:2113?tls=false' npx vitest run infrastructure/event-store
 * or, without a URL, on a throwaway container (testcontainers) when a Docker engine is reachable.
 * Neither exists on the CI machine here, so CI skips it.
 */
const givenUrl = process.env.EVENTSTORE_URL;
const dockerReachable = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');

describe.skipIf(!givenUrl && !dockerReachable)('EventStoreDB event store', () => {
  let container: StartedTestContainer | undefined;
  let url = givenUrl ?? '';

  beforeAll(async () => {
    if (url) return;
    container = await new GenericContainer('eventstore/eventstore:24.10')
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_RUN_PROJECTIONS: 'None', EVENTSTORE_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
      .withStartupTimeout(120_000)
      .start();
    url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  }, 180_000);

  afterAll(async () => {
    await container?.stop();
  });

  eventStoreContract('EventStoreDB', async () => eventStoreDbEventStore(url));
});
