import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** Ledger events (announced: listed for webhooks; payloads carry the realm and ids, never a token). */
export const LEDGER_EVENT_TYPES = [
  ...announced('ledger_connection', [
    ['ledger.connection.connected', 'A ledger company (QuickBooks realm) was connected or reconnected'],
    ['ledger.connection.refreshed', "A connection's tokens were refreshed on request"],
    ['ledger.connection.expired', "The ledger refused a connection's refresh token: it must be connected again"],
    ['ledger.connection.disconnected', 'A ledger connection was disconnected (tokens revoked and deleted)'],
  ]),
  ...announced('ledger_sync', [
    ['ledger.sync.completed', 'A ledger sync run ended: completed, or partial when some records failed'],
    ['ledger.sync.failed', 'A ledger sync run failed as a whole'],
  ]),
];

export function emitLedgerEvent(
  trx: Transaction<DB>,
  tenant: string,
  eventType: (typeof LEDGER_EVENT_TYPES)[number]['event_type'],
  aggregate: { type: 'ledger_connection' | 'ledger_sync'; id: string },
  payload: Record<string, unknown>,
): Promise<string> {
  return emit(trx, { tenant, event_type: eventType, aggregate_type: aggregate.type, aggregate_id: aggregate.id, payload });
}
