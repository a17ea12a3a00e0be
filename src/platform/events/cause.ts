import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Why an event was emitted, when it was not a caller's own request: an automation execution's action.
 * Every event emitted while an action runs (through any service, in any transaction it opens) carries the
 * chain of rules that led to it, so the engine never re-triggers a rule from its own actions and stops
 * chains of rules at a depth limit.
 */
export interface EventCause {
  execution_id: string;
  /** Every rule in the chain, the one whose action emitted the event last. */
  rule_ids: readonly string[];
  /** How many executions deep the chain is (1 for an action of a rule triggered by a user's change). */
  depth: number;
}

const storage = new AsyncLocalStorage<EventCause>();

/** Runs `fn` with every event it emits marked as caused by this execution. */
export const withEventCause = <T>(cause: EventCause, fn: () => Promise<T>): Promise<T> => storage.run(cause, fn);

/** The cause in effect for an emit (null outside an automation action). */
export const currentEventCause = (): EventCause | null => storage.getStore() ?? null;
