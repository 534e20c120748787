/**
 * Calls of one key that arrive while a call of that key is under way wait for it, then go
 * together as ONE call (their arguments merged): at most one call per key is on its way and one
 * queued, however many callers ask. Every caller gets the outcome of a call that started after it
 * asked — so a read sees every write made before it was asked for, and a write is done once a
 * write covering its argument has completed. Against a remote store this turns N round trips of a
 * busy key into about two.
 */
export const coalesce = <K, A, V>(call: (key: K, arg: A) => Promise<V>, merge: (queued: A, arg: A) => A): ((key: K, arg: A) => Promise<V>) => {
  type Lane = { running: Promise<V> | null; queued: { arg: A; result: Promise<V> } | null };
  const lanes = new Map<K, Lane>();
  const settled = (promise: Promise<unknown>) => promise.then(
    () => undefined,
    () => undefined,
  );

  const start = (key: K, lane: Lane, arg: A): Promise<V> => {
    const running = call(key, arg);
    lane.running = running;
    void settled(running).then(() => {
      if (lane.running !== running) return;
      lane.running = null;
      if (!lane.queued) lanes.delete(key);
    });
    return running;
  };

  return (key, arg) => {
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { running: null, queued: null }));
    if (lane.queued) {
      lane.queued.arg = merge(lane.queued.arg, arg);
      return lane.queued.result;
    }
    if (!lane.running) return start(key, lane, arg);
    const owner = lane;
    const queued: { arg: A; result: Promise<V> } = {
      arg,
      result: settled(owner.running as Promise<V>).then(() => {
        owner.queued = null;
        return start(key, owner, queued.arg);
      }),
    };
    owner.queued = queued;
    return queued.result;
  };
};

/** Reads of a key shared by concurrent callers, never answered from before the call (see `coalesce`). */
export const freshReads = <K, V>(read: (key: K) => Promise<V>): ((key: K) => Promise<V>) => {
  const coalesced = coalesce<K, null, V>((key) => read(key), () => null);
  return (key) => coalesced(key, null);
};

/** Writes that only raise a number per key ($max), merged into one write of the highest (see `coalesce`). */
export const coalescedRaises = <K>(raise: (key: K, value: bigint) => Promise<void>): ((key: K, value: bigint) => Promise<void>) =>
  coalesce<K, bigint, void>(raise, (queued, value) => (value > queued ? value : queued));
