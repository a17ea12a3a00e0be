import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { conflict } from '../../platform/http/errors.ts';

/**
 * A tenant must always keep an active user holding the built-in Admin role. Call this before a change
 * that takes `userIds` out of that set (deactivating or deleting them, removing their Admin role): it
 * answers 409 when they are all the active admins there are. It locks the Admin role row first, so
 * concurrent such changes run one after another and cannot together remove the last admin.
 */
export async function assertAdminRemains(trx: Transaction<DB>, tenant: string, userIds: readonly string[], what = 'This change'): Promise<void> {
  const role = await trx
    .selectFrom('roles')
    .select('role_id')
    .where('tenant', '=', tenant)
    .where('is_builtin', '=', true)
    .where('role_name', '=', 'Admin')
    .forUpdate()
    .executeTakeFirst();
  if (!role) return;
  const admins = await trx
    .selectFrom('user_roles as ur')
    .innerJoin('users as u', (j) => j.onRef('u.tenant', '=', 'ur.tenant').onRef('u.user_id', '=', 'ur.user_id'))
    .select('u.user_id')
    .where('ur.tenant', '=', tenant)
    .where('ur.role_id', '=', role.role_id)
    .where('u.is_inactive', '=', false)
    .execute();
  const losing = admins.filter((a) => userIds.includes(a.user_id));
  if (losing.length > 0 && losing.length === admins.length) {
    throw conflict(`${what} would leave the tenant without an active user holding the Admin role; make another user an active Admin first`, {
      reason: 'last_admin',
      user_ids: losing.map((a) => a.user_id),
    });
  }
}
