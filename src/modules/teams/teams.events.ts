import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';

/** Events this module emits. Payloads carry ids and the names of what changed, never whole documents. */
export const TEAM_EVENTS = {
  created: 'team.created',
  updated: 'team.updated',
  deleted: 'team.deleted',
} as const;

export type TeamEventType = (typeof TEAM_EVENTS)[keyof typeof TEAM_EVENTS];

export const emitTeamEvent = (trx: Transaction<DB>, tenant: string, type: TeamEventType, teamId: string, extra: Record<string, unknown> = {}) =>
  emit(trx, { tenant, event_type: type, aggregate_type: 'team', aggregate_id: teamId, payload: { team_id: teamId, ...extra } });

/** team.updated for a membership change: `changed_fields: ['members']` with who joined and who left. */
export const emitMembersChanged = (trx: Transaction<DB>, tenant: string, teamId: string, added: string[], removed: string[]) =>
  emitTeamEvent(trx, tenant, TEAM_EVENTS.updated, teamId, { changed_fields: ['members'], added_user_ids: added, removed_user_ids: removed });
