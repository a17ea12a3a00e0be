import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { RolesTable, UsersTable } from '../../platform/db/schema.ts';
import { likePattern } from '../../platform/db/like.ts';
import { defineList } from '../../platform/http/list.ts';

export type UserHead = Pick<Selectable<UsersTable>, 'user_id' | 'username' | 'email' | 'first_name' | 'last_name' | 'user_type' | 'is_inactive' | 'created_at'>;
export type HeldRole = Pick<Selectable<RolesTable>, 'role_id' | 'role_name' | 'description' | 'is_builtin' | 'is_client_portal'>;

const USER_HEAD = ['u.user_id', 'u.username', 'u.email', 'u.first_name', 'u.last_name', 'u.user_type', 'u.is_inactive', 'u.created_at'] as const;

/** The user, optionally locked so concurrent role changes of the same user queue up. */
export async function findUserHead(db: Executor, tenant: string, userId: string, lock = false): Promise<UserHead | undefined> {
  let q = db.selectFrom('users as u').select(USER_HEAD).where('u.tenant', '=', tenant).where('u.user_id', '=', userId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function rolesOfUser(db: Executor, tenant: string, userId: string): Promise<HeldRole[]> {
  return db
    .selectFrom('user_roles as ur')
    .innerJoin('roles as r', (j) => j.onRef('r.tenant', '=', 'ur.tenant').onRef('r.role_id', '=', 'ur.role_id'))
    .select(['r.role_id', 'r.role_name', 'r.description', 'r.is_builtin', 'r.is_client_portal'])
    .where('ur.tenant', '=', tenant)
    .where('ur.user_id', '=', userId)
    .execute();
}

export async function addUserRoles(db: Executor, tenant: string, userId: string, roleIds: readonly string[]): Promise<void> {
  if (roleIds.length === 0) return;
  await db
    .insertInto('user_roles')
    .values(roleIds.map((role_id) => ({ tenant, user_id: userId, role_id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function removeUserRoles(db: Executor, tenant: string, userId: string, roleIds: readonly string[]): Promise<void> {
  if (roleIds.length === 0) return;
  await db.deleteFrom('user_roles').where('tenant', '=', tenant).where('user_id', '=', userId).where('role_id', 'in', roleIds).execute();
}

export interface UserRolesFilter {
  search?: string;
  isInactive?: boolean;
}

function filteredUsers(db: Executor, tenant: string, f: UserRolesFilter) {
  let q = db.selectFrom('users as u').where('u.tenant', '=', tenant);
  if (f.isInactive !== undefined) q = q.where('u.is_inactive', '=', f.isInactive);
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) =>
      eb.or([
        eb('u.username', 'ilike', p),
        eb('u.email', 'ilike', p),
        eb('u.first_name', 'ilike', p),
        eb('u.last_name', 'ilike', p),
        eb(sql<string>`coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')`, 'ilike', p),
      ]),
    );
  }
  return q;
}

/** Users by the requested order (names case-insensitively), then user_id in the same direction. */
export function userRolesList(db: Executor, tenant: string, f: UserRolesFilter) {
  return defineList({
    from: filteredUsers(db, tenant, f),
    page: filteredUsers(db, tenant, f).select(USER_HEAD),
    sorts: { username: [sql`lower(u.username)`], email: [sql`lower(u.email)`], created_at: ['u.created_at'] },
    defaultSort: 'username',
    defaultOrder: 'asc',
    tieBreaker: 'u.user_id',
    updatedAt: 'u.updated_at',
  });
}

/** The roles of several users at once: user_id → roles. */
export async function rolesOfUsers(db: Executor, tenant: string, userIds: readonly string[]): Promise<Map<string, HeldRole[]>> {
  const out = new Map<string, HeldRole[]>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('user_roles as ur')
    .innerJoin('roles as r', (j) => j.onRef('r.tenant', '=', 'ur.tenant').onRef('r.role_id', '=', 'ur.role_id'))
    .select(['ur.user_id', 'r.role_id', 'r.role_name', 'r.description', 'r.is_builtin', 'r.is_client_portal'])
    .where('ur.tenant', '=', tenant)
    .where('ur.user_id', 'in', userIds)
    .execute();
  for (const { user_id, ...role } of rows) {
    const list = out.get(user_id) ?? [];
    list.push(role);
    out.set(user_id, list);
  }
  return out;
}
