/**
 * A Decider is the whole business logic of one aggregate as three pure functions
 * (after Jérémie Chassaing's pattern, as Emmett uses it):
 * - initialState(): the state of a stream with no events,
 * - evolve(state, event): the state after one more event,
 * - decide(command, state): the new events a command produces, or a thrown DomainError.
 */
export type Event<Type extends string = string, Data extends object = object> = {
  type: Type;
  data: Data;
};

export type Decider<State, Command, E extends Event> = {
  decide: (command: Command, state: State) => E[];
  evolve: (state: State, event: E) => State;
  initialState: () => State;
};

/** Folds a list of events into the state they describe. */
export const foldEvents = <State, E extends Event>(
  decider: Pick<Decider<State, never, E>, 'evolve' | 'initialState'>,
  events: readonly E[],
): State => events.reduce(decider.evolve, decider.initialState());
