import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/** Events this module emits. Payloads carry ids and the names of what changed, never whole documents. */
export const ROLE_EVENTS = {
  created: 'role.created',
  updated: 'role.updated',
  deleted: 'role.deleted',
} as const;

export type RoleEventType = (typeof ROLE_EVENTS)[keyof typeof ROLE_EVENTS];

export const emitRoleEvent = (trx: Transaction<DB>, tenant: string, type: RoleEventType, roleId: string, extra: Record<string, unknown> = {}) =>
  emit(trx, { tenant, event_type: type, aggregate_type: 'role', aggregate_id: roleId, payload: { role_id: roleId, ...extra } });

/** user.updated after a change of the user's roles: `changed_fields: ['roles']` with the role ids added and removed. */
export const emitUserRolesChanged = (trx: Transaction<DB>, tenant: string, userId: string, added: string[], removed: string[]) =>
  emit(trx, {
    tenant,
    event_type: 'user.updated',
    aggregate_type: 'user',
    aggregate_id: userId,
    payload: { user_id: userId, changed_fields: ['roles'], added_role_ids: added, removed_role_ids: removed },
  });
