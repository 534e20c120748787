import { favouriteClaimDecider, favouriteDecider } from '../../domain/favourites/decide.ts';
import { favouriteClaimStream } from '../../domain/favourites/claim.ts';
import { favouriteEvents, favouriteStream, type FavouriteAdded, type FavouriteState } from '../../domain/favourites/favourite.ts';
import { onlyTypes } from '../../domain/stream-events.ts';
import { DomainError } from '../../domain/errors.ts';
import { appendDecided, decideOn, handleCommand, stateOf, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from '../../infrastructure/event-store/port.ts';
import { decodeAll } from '../../infrastructure/event-store/recorded.ts';
import { sha256 } from '../../infrastructure/ids.ts';
import { withFreshNumericId } from './fresh-id.ts';

export const claimKey = (accountId: string, subId: string | null, imageId: string): string =>
  sha256(`${accountId}\u0000${subId ?? ''}\u0000${imageId}`).slice(0, 40);

export type AddFavouriteInput = {
  account_id: string;
  image_id: string;
  sub_id: string | null;
  country_code: string | null;
  client_ip_address: string | null;
};

/** How often a claim is decided again when another request changed the claim stream meanwhile. */
const CLAIM_ATTEMPTS = 5;

/**
 * One favourite per account + sub_id + image, across replicas: the claim stream for that triple
 * is won at the revision read (expected revision), and the favourite's own stream written with
 * it. Both are appended as one (`appendDecided`): in one commit on the embedded store, all or
 * none; one after the other on EventStoreDB, where a process that dies between the two leaves a
 * claim pointing at a favourite that never appeared, taken over once stale. A deleted favourite
 * releases its claim (and a claim on a deleted favourite is taken over too).
 *
 * Each attempt reads the claim, then the state of the favourite it points at, and appends at the
 * claim revision it read: the holder's state is always that of the claim being replaced. Another
 * request that claimed in between makes the append fail, and the next attempt reads both again
 * (and then finds that request's favourite active: 409 duplicate_favourite).
 */
export const addFavourite = async (store: EventStore, input: AddFavouriteInput, context: CommandContext) => {
  const claimStream = favouriteClaimStream(claimKey(input.account_id, input.sub_id, input.image_id));
  return withFreshNumericId(async (favouriteId) => {
    const now = new Date().toISOString();
    for (let attempt = 1; ; attempt++) {
      const claim = await stateOf(store, claimStream, favouriteClaimDecider);
      const holder: FavouriteState =
        claim.state.holder === null ? { status: 'none' } : (await stateOf(store, favouriteStream(claim.state.holder), favouriteDecider)).state;
      const claimed = decideOn(
        claimStream,
        favouriteClaimDecider,
        { type: 'ClaimFavourite', favourite_id: favouriteId, account_id: input.account_id, sub_id: input.sub_id, image_id: input.image_id, holder, now },
        claim,
      );
      const added = decideOn(
        favouriteStream(favouriteId),
        favouriteDecider,
        { type: 'AddFavourite', favourite_id: favouriteId, ...input, now },
        { state: favouriteDecider.initialState(), revision: null },
      );
      try {
        const [, position] = await appendDecided(store, [claimed, added], context);
        return { favourite: (added.events[0] as FavouriteAdded).data, position };
      } catch (error) {
        // A clash on the favourite's own (new) stream is withFreshNumericId's: another id.
        if (!isWrongExpectedRevision(error) || error.streamName !== claimStream) throw error;
        // Someone else changed the claim between our reads and our append: decide again on theirs.
        if (attempt >= CLAIM_ATTEMPTS) throw new DomainError('duplicate_favourite', 'this image is already a favourite for this account and sub_id');
      }
    }
  });
};

export const deleteFavourite = async (store: EventStore, favouriteId: number, accountId: string, context: CommandContext) => {
  const stream = favouriteStream(favouriteId);
  const result = await handleCommand(store, stream, favouriteDecider, { type: 'DeleteFavourite', account_id: accountId, now: new Date().toISOString() }, context);
  const [added] = decodeAll(onlyTypes(favouriteEvents, 'FavouriteAdded'), await store.readStream(stream, { maxCount: 1 }));
  const released = await handleCommand(
    store,
    favouriteClaimStream(claimKey(added.data.account_id, added.data.sub_id, added.data.image_id)),
    favouriteClaimDecider,
    { type: 'ReleaseFavourite', favourite_id: favouriteId, now: new Date().toISOString() },
    context,
  );
  return { position: released.position ?? result.position };
};
