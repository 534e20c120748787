import { describe, expect, it } from 'vitest';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { EndpointsBehindError, planDeliveries } from './schedule-deliveries.ts';
import { deliveryIdFor } from './event-mapping.ts';
import { uploadedImageDoc } from '../contracts/image-resource.ts';
import type { ImageDoc } from '../contracts/read-models.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

const imageDoc = (id: string, accountId: string, extra: Partial<ImageDoc> = {}): ImageDoc => ({
  ...uploadedImageDoc({
    image_id: id,
    account_id: accountId,
    sub_id: 'owner-sub',
    original_filename: `${id}.png`,
    mime_type: 'image/png',
    format: 'png',
    width: 40,
    height: 30,
    bytes: 100,
    age_months: null,
    breed_ids: [],
    url_token: `token-${id}`,
    blob_keys: {} as never,
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: '2026-01-01T00:00:00.000Z',
  }),
  random: 0.5,
  ...extra,
});

/** Counts the reads of the images read model (how often one batch goes to it, by method). */
const countingImageReads = (store: ReadStore) => {
  const counts: Record<string, number> = {};
  const counted = new Proxy(store, {
    get: (target, property, receiver) =>
      property === 'collection'
        ? (name: string) => {
            const collection = target.collection(name);
            if (name !== Collections.images) return collection;
            return new Proxy(collection, {
              get: (inner, method) => {
                const value = Reflect.get(inner, method);
                if (typeof value !== 'function') return value;
                return (...args: unknown[]) => {
                  counts[String(method)] = (counts[String(method)] ?? 0) + 1;
                  return value.apply(inner, args);
                };
              },
            });
          }
        : Reflect.get(target, property, receiver),
  });
  return { counted, counts };
};

const endpoint = (id: string, events: string[], status: 'enabled' | 'disabled' = 'enabled'): WebhookDoc => ({
  _id: id,
  id,
  account_id: 'acc',
  url: 'https://example.com/hook',
  description: '',
  enabled_events: events,
  status,
  legacy_unsigned: false,
  consecutive_failures: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  disabled_at: null,
  secret_rotated_at: null,
});

const voteCast = (id: string): RecordedEvent => ({
  id,
  type: 'VoteCast',
  streamName: 'vote-7',
  revision: 0n,
  position: 1n,
  data: { vote_id: 7, account_id: 'acc', image_id: 'img', sub_id: null, value: 1, country_code: null, ip_address: '192.0.2.1', created_at: '2026-01-01T00:00:00.000Z' },
  metadata: { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: '2026-01-01T00:00:00.000Z', schema_version: 1 },
});

describe('planning deliveries from domain events', () => {
  it('plans one delivery per subscribed, enabled endpoint, with the same id however often the bus hands the event over', async () => {
    const readStore = embeddedReadStore();
    const webhooks = readStore.collection<WebhookDoc>(Collections.webhooks);
    await webhooks.upsert(endpoint('w1', ['vote.created']), 1n);
    await webhooks.upsert(endpoint('w2', ['favourite.created']), 1n);
    await webhooks.upsert(endpoint('w3', ['vote.created'], 'disabled'), 1n);
    await readStore.setCheckpoint('webhooks', 1n);
    await readStore.setCheckpoint('images', 1n);

    const event = voteCast('evt-1');
    const first = await planDeliveries([event], { readStore }, { now: () => '2026-01-02T00:00:00.000Z' });
    const again = await planDeliveries([event], { readStore });
    expect(first.map((planned) => planned.opening.delivery_id)).toEqual([deliveryIdFor('evt-1', 'w1')]);
    expect(again.map((planned) => planned.opening.delivery_id)).toEqual([deliveryIdFor('evt-1', 'w1')]);
    const { opening } = first[0];
    expect(opening).toMatchObject({ webhook_id: 'w1', account_id: 'acc', event_id: 'evt-1', event_type: 'vote.created', scheduled_at: '2026-01-02T00:00:00.000Z' });
    expect(opening.payload).toEqual({
      id: 7,
      image_id: 'img',
      sub_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      value: 1,
      country_code: null,
      image: { id: 'img', url: null },
      _metadata: { event_type: 'vote.created', event_id: 'evt-1', timestamp: '2026-01-01T00:00:00.000Z' },
    });
    expect(JSON.stringify(opening.payload)).not.toContain('192.0.2.1');
    expect(await planDeliveries([{ ...event, type: 'VoteDeleted' }], { readStore })).toEqual([]);
    await readStore.close();
  });

  it('plans a whole batch at once: each account to its own endpoints, a repeated event once', async () => {
    const readStore = embeddedReadStore();
    const webhooks = readStore.collection<WebhookDoc>(Collections.webhooks);
    await webhooks.upsert(endpoint('a1', ['vote.created']), 1n);
    await webhooks.upsert(endpoint('a2', ['vote.created', 'favourite.created']), 1n);
    await webhooks.upsert({ ...endpoint('b1', ['vote.created']), account_id: 'other' }, 1n);
    await readStore.setCheckpoint('webhooks', 3n);
    await readStore.setCheckpoint('images', 3n);

    const ofOther = (id: string): RecordedEvent => {
      const event = voteCast(id);
      return { ...event, position: 3n, data: { ...event.data, account_id: 'other' } };
    };
    const batch = [voteCast('e1'), ofOther('e2'), voteCast('e3'), voteCast('e1')];
    const planned = await planDeliveries(batch, { readStore });
    expect(planned.map((delivery) => delivery.opening.delivery_id)).toEqual([
      deliveryIdFor('e1', 'a1'),
      deliveryIdFor('e1', 'a2'),
      deliveryIdFor('e2', 'b1'),
      deliveryIdFor('e3', 'a1'),
      deliveryIdFor('e3', 'a2'),
    ]);
    expect(planned.find((delivery) => delivery.opening.delivery_id === deliveryIdFor('e2', 'b1'))?.opening.account_id).toBe('other');
    await readStore.close();
  });

  it('fails the batch while the endpoints read model is behind the events (redelivered later)', async () => {
    const readStore = embeddedReadStore();
    // The endpoint was registered before the vote, but its projection is held back at position 0.
    const event = { ...voteCast('late-1'), position: 5n };
    await expect(planDeliveries([event], { readStore }, { catchUpMs: 50 })).rejects.toBeInstanceOf(EndpointsBehindError);
    // The projection catches up; the batch handed over again is planned against the current list.
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(endpoint('w1', ['vote.created']), 4n);
    await readStore.setCheckpoint('webhooks', 5n);
    await readStore.setCheckpoint('images', 5n);
    const planned = await planDeliveries([event], { readStore }, { catchUpMs: 50 });
    expect(planned.map((delivery) => delivery.opening.delivery_id)).toEqual([deliveryIdFor('late-1', 'w1')]);
    await readStore.close();
  });

  it('embeds in vote and favourite bodies the Image each account sees, from one read of the images for the batch', async () => {
    const readStore = embeddedReadStore();
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(endpoint('a1', ['vote.created', 'favourite.created']), 1n);
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert({ ...endpoint('b1', ['vote.created']), account_id: 'other' }, 1n);
    const images = readStore.collection<ImageDoc>(Collections.images);
    await images.upsert(imageDoc('own', 'acc'), 1n);
    await images.upsert(imageDoc('theirs', 'other'), 1n);
    await images.upsert(imageDoc('shared', 'other', { public: true }), 1n);
    await readStore.setCheckpoint('webhooks', 1n);
    await readStore.setCheckpoint('images', 1n);

    const vote = (id: string, accountId: string, imageId: string): RecordedEvent => {
      const event = voteCast(id);
      return { ...event, data: { ...event.data, account_id: accountId, image_id: imageId } };
    };
    const favourite: RecordedEvent = {
      ...voteCast('f1'),
      type: 'FavouriteAdded',
      streamName: 'favourite-3',
      data: { favourite_id: 3, account_id: 'acc', image_id: 'own', sub_id: null, country_code: null, created_at: '2026-01-01T00:00:00.000Z' },
    };
    const batch = [vote('v-own', 'acc', 'own'), vote('v-theirs', 'acc', 'theirs'), vote('v-shared', 'acc', 'shared'), vote('v-other', 'other', 'theirs'), vote('v-missing', 'acc', 'gone'), favourite];
    const { counted, counts } = countingImageReads(readStore);
    const planned = await planDeliveries(batch, { readStore: counted, publicBaseUrl: 'https://cdn.example' });
    // One read of the batch's images (the children's read is skipped: none has any).
    expect(counts).toEqual({ getMany: 1 });
    const bodyOf = (eventId: string) => planned.find((delivery) => delivery.opening.event_id === eventId)!.opening.payload as Record<string, any>;

    // Its own image: the Image with the owner's fields, url under PUBLIC_BASE_URL.
    expect(bodyOf('v-own').image).toMatchObject({ id: 'own', url: 'https://cdn.example/v1/images/files/token-own.png', sub_id: 'owner-sub', original_filename: 'own.png', width: 40 });
    expect(bodyOf('f1').image).toEqual(bodyOf('v-own').image);
    // Another account's private image: its id alone; seen by that account: in full.
    expect(bodyOf('v-theirs').image).toEqual({ id: 'theirs', url: null });
    expect(bodyOf('v-other').image).toMatchObject({ id: 'theirs', url: 'https://cdn.example/v1/images/files/token-theirs.png', sub_id: 'owner-sub' });
    // Another account's public image: the Image as the public sees it (no owner's fields).
    expect(bodyOf('v-shared').image).toMatchObject({ id: 'shared', url: 'https://cdn.example/v1/images/files/token-shared.png' });
    expect(bodyOf('v-shared').image).not.toHaveProperty('original_filename');
    expect(bodyOf('v-shared').image.sub_id ?? null).toBeNull();
    // Unknown: its id alone.
    expect(bodyOf('v-missing').image).toEqual({ id: 'gone', url: null });
    await readStore.close();
  });

  it('waits for the images read model only when an embedded image is not there yet', async () => {
    const readStore = embeddedReadStore();
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(endpoint('a1', ['vote.created']), 1n);
    await readStore.setCheckpoint('webhooks', 9n);
    const images = readStore.collection<ImageDoc>(Collections.images);
    await images.upsert(imageDoc('known', 'acc'), 1n);
    await readStore.setCheckpoint('images', 1n);
    const vote = (id: string, imageId: string): RecordedEvent => {
      const event = voteCast(id);
      return { ...event, position: 9n, data: { ...event.data, image_id: imageId } };
    };
    // The waits a plan asks of the images read model with a timeout (a look at it without one is no wait).
    const waits: number[] = [];
    const watched = new Proxy(readStore, {
      get: (target, property, receiver) =>
        property === 'waitForCheckpoints'
          ? (names: readonly string[], position: bigint, timeoutMs: number) => {
              if (names.includes('images') && timeoutMs > 0) waits.push(timeoutMs);
              return target.waitForCheckpoints(names, position, timeoutMs);
            }
          : Reflect.get(target, property, receiver),
    });

    // The image is there (the read model is behind the vote itself): no wait.
    const [known] = await planDeliveries([vote('v1', 'known')], { readStore: watched }, { imagesCatchUpMs: 5_000 });
    expect(waits).toEqual([]);
    expect((known.opening.payload as any).image).toMatchObject({ id: 'known', url: '/v1/images/files/token-known.png' });

    // Not there yet: the batch waits for the read model to reach it, then embeds the Image.
    setTimeout(() => {
      void images.upsert(imageDoc('fresh', 'acc'), 8n).then(() => readStore.setCheckpoint('images', 9n));
    }, 100);
    const [fresh] = await planDeliveries([vote('v2', 'fresh')], { readStore: watched }, { imagesCatchUpMs: 5_000 });
    expect(waits).toEqual([5_000]);
    expect((fresh.opening.payload as any).image).toMatchObject({ id: 'fresh', url: '/v1/images/files/token-fresh.png' });

    // Unknown once the read model has reached the batch: its id alone, at once.
    const [gone] = await planDeliveries([vote('v3', 'gone')], { readStore: watched }, { imagesCatchUpMs: 5_000 });
    expect(waits).toEqual([5_000]);
    expect((gone.opening.payload as any).image).toEqual({ id: 'gone', url: null });
    await readStore.close();
  });
});
