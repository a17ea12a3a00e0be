import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/** Events this module emits. Payloads carry ids and the names of changed fields, never profiles or secrets. */
export const USER_EVENTS = {
  created: 'user.created',
  updated: 'user.updated',
  deleted: 'user.deleted',
} as const;

export type UserEventType = (typeof USER_EVENTS)[keyof typeof USER_EVENTS];

export function emitUserEvent(trx: Transaction<DB>, tenant: string, type: UserEventType, userId: string, extra: Record<string, unknown> = {}): Promise<string> {
  return emit(trx, { tenant, event_type: type, aggregate_type: 'user', aggregate_id: userId, payload: { user_id: userId, ...extra } });
}

/** user.updated: `changed_fields` names what changed (user fields, `image` for the avatar, `password`). */
export const emitUserUpdated = (trx: Transaction<DB>, tenant: string, userId: string, changedFields: string[]) =>
  emitUserEvent(trx, tenant, USER_EVENTS.updated, userId, { changed_fields: changedFields });
