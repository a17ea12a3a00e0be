import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/** Events this module emits; payloads carry ids and changed field names only. */
export const CONTACT_EVENTS = {
  created: 'contact.created',
  updated: 'contact.updated',
  deleted: 'contact.deleted',
} as const;

export type ContactEventType = (typeof CONTACT_EVENTS)[keyof typeof CONTACT_EVENTS];

export function emitContactEvent(
  trx: Transaction<DB>,
  tenant: string,
  type: ContactEventType,
  contact: { contact_id: string; client_id: string | null },
  extra: Record<string, unknown> = {},
): Promise<string> {
  return emit(trx, {
    tenant,
    event_type: type,
    aggregate_type: 'contact',
    aggregate_id: contact.contact_id,
    payload: { contact_id: contact.contact_id, client_id: contact.client_id, ...extra },
  });
}
