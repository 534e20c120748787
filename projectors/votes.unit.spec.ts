import { describe, expect, it, vi } from 'vitest';
import { Collections, type ImageRefDoc, type VoteDoc } from '../contracts/read-models.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { unitOfWork } from '../infrastructure/read-store/unit-of-work.ts';
import { votesProjection } from './votes.ts';

const voteCast = (position: number, voteId: number, imageId: string, accountId = 'acc-a'): RecordedEvent => ({
  id: `e${position}`,
  streamName: `vote-${voteId}`,
  revision: 0n,
  position: BigInt(position),
  type: 'VoteCast',
  data: { vote_id: voteId, account_id: accountId, image_id: imageId, sub_id: null, value: 1, country_code: null, created_at: '2026-11-25T00:00:00.000Z' },
  metadata: {} as RecordedEvent['metadata'],
});

const ref = (id: string, accountId: string, isPublic: boolean): ImageRefDoc => ({ _id: id, account_id: accountId, url_path: `/v1/images/files/${id}.jpg`, public: isPublic, species_id: '1', breed_ids: ['abys'] });

describe('votes projection: a batch of votes', () => {
  it('reads the image copies of the whole batch in one call and fills each vote from it', async () => {
    const store = embeddedReadStore();
    const images = store.collection<ImageRefDoc>(Collections.voteImages);
    await images.upsert(ref('pub', 'acc-b', true), 1n);
    await images.upsert(ref('mine', 'acc-a', false), 2n);
    await images.upsert(ref('theirs', 'acc-b', false), 3n);
    // Through the unit of work a batch's reads reach the store as getStored (documents with their positions).
    const getMany = vi.spyOn(images, 'getStored');
    const get = vi.spyOn(images, 'get');

    const batch = [voteCast(10, 1, 'pub'), voteCast(11, 2, 'mine'), voteCast(12, 3, 'theirs'), voteCast(13, 4, 'unknown'), voteCast(14, 5, 'pub')];
    const work = unitOfWork(store);
    await votesProjection.prefetch?.(batch, work.store);
    for (const event of batch) await votesProjection.apply(event, work.store);
    await work.flush();

    expect(getMany).toHaveBeenCalledTimes(1);
    expect(new Set(getMany.mock.calls[0][0])).toEqual(new Set(['pub', 'mine', 'theirs', 'unknown']));
    expect(get).not.toHaveBeenCalled();
    const votes = store.collection<VoteDoc>(Collections.votes);
    const url = async (id: string) => (await votes.get(id))?.image_url;
    expect(await url('1')).toBe('/v1/images/files/pub.jpg');
    expect(await url('2')).toBe('/v1/images/files/mine.jpg');
    // Another account's private image stays hidden, an unknown image has no fields.
    expect(await url('3')).toBeNull();
    expect(await url('4')).toBeNull();
    expect((await votes.get('5'))?.image_breed_ids).toEqual(['abys']);
  });
});
