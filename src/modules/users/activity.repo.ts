import type { Executor } from '../../platform/db/executor.ts';
import { newId } from '../../platform/ids.ts';

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
