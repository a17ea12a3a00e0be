import type { Database } from './platform/db/database.ts';
import type { Consumer } from './platform/events/relay.ts';

/**
 * The outbox consumers the worker runs, in order. Areas that react to events after commit (outbound
 * webhooks, search indexing, automation) add theirs here.
 */
export function eventConsumers(_database: Database): Consumer[] {
  return [];
}
