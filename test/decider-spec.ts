import { expect } from 'vitest';
import type { Decider, Event } from '../domain/decider.ts';
import { DomainError, type ErrorCode } from '../domain/errors.ts';

/**
 * given(events).when(command).then(events) — or .thenThrows(code) — for deciders, after
 * Emmett's DeciderSpecification.
 */
export const deciderSpec = <State, Command, E extends Event>(decider: Decider<State, Command, E>) => ({
  given: (events: E[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenNothing: () => expect(run()).toEqual([]),
        thenThrows: (code: ErrorCode) => {
          let thrown: unknown;
          try {
            run();
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(DomainError);
          expect((thrown as DomainError).code).toBe(code);
        },
      };
    },
  }),
});
