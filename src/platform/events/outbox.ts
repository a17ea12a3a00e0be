import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { currentEventCause } from './cause.ts';

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
  const event_id = newId();
  const cause = currentEventCause();
  await trx
    .insertInto('events')
    .values({ ...event, event_id, payload: JSON.stringify(event.payload), occurred_at: new Date(), next_attempt_at: new Date(), cause: cause === null ? null : JSON.stringify(cause) })
    .execute();
  // Wakes idle workers at commit; they also poll, so a lost notification only adds latency.
  await sql`select pg_notify(${EVENTS_CHANNEL}, '')`.execute(trx);
  return event_id;
}
