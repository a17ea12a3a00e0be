import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/** Events this module emits. Payloads carry ids and the names of changed fields, never whole documents. */
export const CLIENT_EVENTS = {
  created: 'client.created',
  updated: 'client.updated',
  deleted: 'client.deleted',
  merged: 'client.merged',
} as const;

export type ClientEventType = (typeof CLIENT_EVENTS)[keyof typeof CLIENT_EVENTS];

export function emitClientEvent(
  trx: Transaction<DB>,
  tenant: string,
  type: ClientEventType,
  clientId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return emit(trx, { tenant, event_type: type, aggregate_type: 'client', aggregate_id: clientId, payload: { client_id: clientId, ...extra } });
}

/** client.updated: `changed_fields` names what changed (client fields, or `locations`, `notes`, `billing_profile_contacts`). */
export const emitClientUpdated = (trx: Transaction<DB>, tenant: string, clientId: string, changedFields: string[], extra: Record<string, unknown> = {}) =>
  emitClientEvent(trx, tenant, CLIENT_EVENTS.updated, clientId, { changed_fields: changedFields, ...extra });
