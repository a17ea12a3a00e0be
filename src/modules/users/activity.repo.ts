import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { UserActivityTable } from '../../platform/db/schema.ts';
import { defineList } from '../../platform/http/list.ts';
import { newId } from '../../platform/ids.ts';
import { portalFilter, type PortalScope } from './users.repo.ts';

/** What the activity log records. Every area that changes a user's security or profile writes one. */
export const ACTIVITY_TYPES = [
  'login', 'logout', 'login_failed', 'password_change', '2fa_enabled', '2fa_disabled', 'role_change',
  'team_join', 'team_leave', 'api_key_created', 'api_key_revoked', 'profile_update', 'user_created',
  'user_deactivated', 'user_activated', 'user_deleted',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export interface ActivityInput {
  tenant: string;
  /** Whose activity it is. */
  user_id: string;
  /** Who did it, when someone else did (an admin resetting a password); null for the user themself. */
  actor_user_id?: string | null;
  activity_type: ActivityType;
  details?: Record<string, unknown>;
  ip?: string | null;
  user_agent?: string | null;
}

/** Records one activity; call it in the transaction of the change it describes. */
export async function recordActivity(db: Executor, a: ActivityInput): Promise<void> {
  await db
    .insertInto('user_activity')
    .values({
      tenant: a.tenant,
      activity_id: newId(),
      user_id: a.user_id,
      actor_user_id: a.actor_user_id && a.actor_user_id !== a.user_id ? a.actor_user_id : null,
      activity_type: a.activity_type,
      details: JSON.stringify(a.details ?? {}),
      ip: a.ip?.slice(0, 100) ?? null,
      user_agent: a.user_agent?.slice(0, 500) ?? null,
    })
    .execute();
}

export type ActivityRow = Selectable<UserActivityTable>;

export interface ActivityFilter {
  /** One user's activity; all users' otherwise. */
  userId?: string;
  /** Activity done by this user (as actor, or on themself without one). */
  actorUserId?: string;
  /** Client-portal scope: only activity of users the actor may see. */
  portal?: PortalScope;
  type?: ActivityType;
  since?: Date;
  until?: Date;
}

/** Newest first by default: (created_at, activity_id) in the requested direction, a total order. */
export function activityList(db: Executor, tenant: string, f: ActivityFilter) {
  let q = db.selectFrom('user_activity').where('tenant', '=', tenant);
  if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
  if (f.actorUserId !== undefined) {
    const actorId = f.actorUserId;
    q = q.where((eb) => eb.or([eb('actor_user_id', '=', actorId), eb.and([eb('actor_user_id', 'is', null), eb('user_id', '=', actorId)])]));
  }
  if (f.portal !== undefined) {
    const scope = f.portal;
    q = q.where('user_id', 'in', (eb) => eb.selectFrom('users as u').select('u.user_id').where('u.tenant', '=', tenant).where(portalFilter(scope)));
  }
  if (f.type !== undefined) q = q.where('activity_type', '=', f.type);
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since);
  if (f.until !== undefined) q = q.where('created_at', '<', f.until);
  // `updated_since` is folded into `since` by the caller (an entry never changes after it is written).
  // An entry never changes after it is written, so created_at is also the key of the updated_at sort.
  return defineList({ from: q, page: q.selectAll(), sorts: { created_at: ['created_at'] }, defaultSort: 'created_at', defaultOrder: 'desc', tieBreaker: 'activity_id', updatedAt: 'created_at' });
}
