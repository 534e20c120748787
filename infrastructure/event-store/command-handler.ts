import { newEventId } from '../ids.ts';
import { DomainError } from '../../domain/errors.ts';
import { foldEvents, type Decider, type Event } from '../../domain/decider.ts';
import { isWrongExpectedRevision, type EventMetadata, type EventStore, type ExpectedRevision, type RecordedEvent } from './port.ts';

/** Who asks, and on behalf of which request: becomes the metadata of every event appended. */
export type CommandContext = {
  accountId: string | null;
  requestId: string | null;
  correlationId?: string | null;
  causationId?: string | null;
  actor: string | null;
};

export const metadataFor = (context: CommandContext, timestamp: string): EventMetadata => ({
  account_id: context.accountId,
  correlation_id: context.correlationId ?? context.requestId,
  causation_id: context.causationId ?? null,
  request_id: context.requestId,
  actor: context.actor,
  timestamp,
  schema_version: 1,
});

export type HandleResult<State, E extends Event> = {
  events: E[];
  state: State;
  /** Global position of the last appended event, null when the command decided nothing. */
  position: bigint | null;
};

export type HandleOptions = {
  retries?: number;
  now?: () => string;
  /**
   * The stream is new by construction (its id was just drawn): decide on the initial state
   * without reading it and append with "no stream". Should the stream exist after all, the
   * append fails with a wrong-revision error and nothing is retried: the caller draws a new id.
   */
  newStream?: boolean;
  /**
   * The stream as the caller has just folded it (see `stateOf`): the first try decides on it
   * instead of reading the stream again. Should another writer have appended since, the append
   * fails with a wrong revision and the retry reads the stream as usual.
   */
  known?: Folded<unknown>;
  /**
   * Folded states kept between commands (see `streamStates`): the stream is read only from the
   * revision after the one cached, and the state the command leaves is cached in turn.
   */
  states?: StreamStates<unknown>;
};

/** A stream's state and the revision it was folded up to (null: no stream). */
export type Folded<State> = { state: State; revision: bigint | null };

export type StreamStates<State> = {
  get(streamName: string): Folded<State> | undefined;
  set(streamName: string, folded: Folded<State>): void;
  delete(streamName: string): void;
};

/**
 * The folded states of up to `max` streams, least recently used out first, for a stream every
 * command of an owner extends and none ever shortens (an account's upload quota grows by an event
 * per upload): a command then reads the events after the cached revision instead of the whole
 * stream. Always right: what other writers (or processes) appended is read before deciding, and
 * an entry the stream does not match (a wrong revision twice at the same revision) is dropped, so
 * the retry folds the stream from its start.
 */
export const streamStates = <State>(max = 10_000): StreamStates<State> => {
  const entries = new Map<string, Folded<State>>();
  return {
    get(streamName) {
      const folded = entries.get(streamName);
      if (folded) {
        entries.delete(streamName);
        entries.set(streamName, folded);
      }
      return folded;
    },
    set(streamName, folded) {
      entries.delete(streamName);
      entries.set(streamName, folded);
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
    delete: (streamName) => void entries.delete(streamName),
  };
};

/**
 * A decider's fold, taking the events read back from its own stream: only the decider's `decide`
 * writes that stream (through handleCommand), so each of them is one of its events E. This is where
 * the command side takes that on trust instead of checking every event of every command's read.
 */
const ownFold = <State, E extends Event>(decider: Pick<Decider<State, never, E>, 'evolve' | 'initialState'>) =>
  decider as Pick<Decider<State, never, Event>, 'evolve' | 'initialState'>;

/**
 * A stream's state from the cache `states` (what came after the cached revision read and folded
 * on), or folded from the stream's start when nothing is cached.
 */
export const currentState = async <State, E extends Event>(
  store: EventStore,
  streamName: string,
  decider: Pick<Decider<State, never, E>, 'evolve' | 'initialState'>,
  states: StreamStates<State> | undefined,
): Promise<Folded<State>> => {
  const cached = states?.get(streamName);
  if (!cached || cached.revision === null) return stateOf(store, streamName, decider);
  const events = await store.readStream(streamName, { fromRevision: cached.revision + 1n });
  if (events.length === 0) return cached;
  return { state: events.reduce(ownFold(decider).evolve, cached.state), revision: events[events.length - 1].revision };
};

/** The answer when concurrent writers kept winning a stream: 409, ask again (never a 500). */
export const contentionError = (streamName: string, attempts: number): DomainError =>
  new DomainError('conflict', `${streamName.split('-')[0]} was changed concurrently ${attempts} times while this request was applied; try again`, {
    retryAfterSeconds: 1,
  });

/**
 * Load the stream, fold it, decide, append with the revision that was read. A concurrent writer
 * makes the append fail with a wrong-revision error; the whole cycle is then retried on the new
 * state, so business rules are always checked against what is really in the stream. When the
 * retries run out (a stream many requests change at once), the answer is 409 `conflict`; on a new
 * stream (`newStream`) the wrong-revision error itself reaches the caller, who draws a new id.
 */
export const handleCommand = async <State, Command, E extends Event>(
  store: EventStore,
  streamName: string,
  decider: Decider<State, Command, E>,
  command: Command | ((state: State) => Command),
  context: CommandContext,
  options: HandleOptions = {},
): Promise<HandleResult<State, E>> => {
  const retries = options.newStream ? 0 : (options.retries ?? 5);
  const now = options.now ?? (() => new Date().toISOString());
  let lastConflictAt: bigint | null | undefined;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } =
      attempt === 0 && options.known
        ? (options.known as Folded<State>)
        : options.newStream
          ? { state: decider.initialState(), revision: null }
          : await currentState(store, streamName, decider, options.states as StreamStates<State> | undefined);
    const expectedRevision: ExpectedRevision = revision ?? 'no_stream';
    const resolved = typeof command === 'function' ? (command as (state: State) => Command)(state) : command;
    const events = decider.decide(resolved, state);
    if (events.length === 0) return { events, state, position: null };
    const metadata = metadataFor(context, now());
    try {
      const result = await store.append(
        streamName,
        events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
        { expectedRevision },
      );
      const after = events.reduce(decider.evolve, state);
      options.states?.set(streamName, { state: after, revision: result.nextRevision });
      return { events, state: after, position: result.position };
    } catch (error) {
      if (!isWrongExpectedRevision(error)) throw error;
      // Another writer won the race: the cached state is still a true prefix of the stream, so the
      // retry reads only what was appended after it. A retry that found nothing new and failed
      // again at the same revision means the cache does not match the stream at all: the entry is
      // dropped and the stream folded from its start.
      if (revision === lastConflictAt) options.states?.delete(streamName);
      lastConflictAt = revision;
      if (options.newStream) throw error;
      if (attempt >= retries) throw contentionError(streamName, attempt + 1);
    }
  }
};

/** A command decided on a stream's known state, to be appended together with others (`appendDecided`). */
export type Decided<State, E extends Event> = {
  streamName: string;
  events: E[];
  /** The stream's state once the events are appended. */
  state: State;
  expectedRevision: ExpectedRevision;
};

/**
 * Decides `command` on `folded` — the stream as the caller has just read it (`stateOf`), or
 * `{ state: initialState(), revision: null }` for a stream new by construction — without
 * appending: the append, at the revision the decision was made on, is `appendDecided`'s.
 */
export const decideOn = <State, Command, E extends Event>(
  streamName: string,
  decider: Decider<State, Command, E>,
  command: Command,
  folded: Folded<State>,
): Decided<State, E> => {
  const events = decider.decide(command, folded.state);
  return { streamName, events, state: events.reduce(decider.evolve, folded.state), expectedRevision: folded.revision ?? 'no_stream' };
};

/**
 * Appends commands decided on known states (`decideOn`) as one `EventStore.appendAll`, in order,
 * each at the revision it was decided on: a command that writes two streams (a claim and what it
 * claims) waits for one append, and on the embedded store the two are all or none. A stream
 * another writer changed since is a wrong-revision error naming that stream (nothing retried
 * here: the caller reads and decides again). Answers each command's position (null when it
 * decided nothing).
 */
export const appendDecided = async (
  store: EventStore,
  decided: readonly Decided<unknown, Event>[],
  context: CommandContext,
  now: () => string = () => new Date().toISOString(),
): Promise<(bigint | null)[]> => {
  const metadata = metadataFor(context, now());
  const writing = decided.filter((command) => command.events.length > 0);
  const results = await store.appendAll(
    writing.map((command) => ({
      streamName: command.streamName,
      events: command.events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
      expectedRevision: command.expectedRevision,
    })),
  );
  return decided.map((command) => (command.events.length > 0 ? results[writing.indexOf(command)].position : null));
};

/** Folds an already-read stream (for handlers that need the state of a second stream). */
export const stateOf = async <State, E extends Event>(
  store: EventStore,
  streamName: string,
  decider: Pick<Decider<State, never, E>, 'evolve' | 'initialState'>,
): Promise<Folded<State> & { events: RecordedEvent[] }> => {
  const events = await store.readStream(streamName);
  return { state: foldEvents(ownFold(decider), events), revision: events.length === 0 ? null : events[events.length - 1].revision, events };
};
