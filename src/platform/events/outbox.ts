import type { Transaction } from 'kysely';
import { notifyAfterCommit } from '../db/executor.ts';
import { prepareIf } from '../db/prepared.ts';
import type { DB } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { currentEventCause, type EventCause } from './cause.ts';

export const EVENTS_CHANNEL = 'psa_events';

export interface DomainEvent {
  tenant: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
}

/**
 * Records an event in the same transaction as the write it describes (the type demands a
 * Transaction), so either both commit or neither does. The worker delivers it after commit. An event
 * emitted while an automation action runs records that cause (see cause.ts).
 */
export async function emit(trx: Transaction<DB>, event: DomainEvent): Promise<string> {
  const [eventId] = await emitMany(trx, [event]);
  return eventId!;
}

/**
 * emit() for many events in one statement (a batch's writes). Each takes its own `cause` when it names
 * one, the cause in effect otherwise. Returns their ids in order.
 */
export async function emitMany(trx: Transaction<DB>, events: readonly (DomainEvent & { cause?: EventCause | null })[]): Promise<string[]> {
  if (events.length === 0) return [];
  const now = new Date();
  const current = currentEventCause();
  const rows = events.map(({ cause = current, ...event }) => ({
    ...event, event_id: newId(), payload: JSON.stringify(event.payload), occurred_at: now, next_attempt_at: now, cause: cause === null ? null : JSON.stringify(cause),
  }));
  // One event (what most writes emit) is one statement text: prepared, it is parsed and planned once per connection.
  await trx.insertInto('events').values(rows).modifyEnd(prepareIf(rows.length === 1)).execute();
  notifyAfterCommit(trx, EVENTS_CHANNEL);
  return rows.map((r) => r.event_id);
}
