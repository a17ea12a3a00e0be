import { sql, type Expression, type ExpressionBuilder, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePattern } from '../../platform/db/like.ts';
import type { DB, UsersTable } from '../../platform/db/schema.ts';
import type { UserType } from './users.schemas.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { defineList } from '../../platform/http/list.ts';

export type UserRow = Selectable<UsersTable>;

// Every user write keeps the user's search row current in the same transaction.
export async function insertUser(db: Executor, user: Insertable<UsersTable>): Promise<UserRow> {
  const row = await db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  await syncSearch(db, row.tenant, 'user', [row.user_id]);
  return row;
}

export async function findUserById(db: Executor, tenant: string, userId: string, lock = false): Promise<UserRow | undefined> {
  let q = db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('user_id', '=', userId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findUserByEmail(db: Executor, tenant: string, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant', '=', tenant)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

/** The user id holding this username or e-mail (both unique per tenant regardless of case), if any. */
export async function findUserIdBy(db: Executor, tenant: string, field: 'username' | 'email', value: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('user_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(${sql.ref(field)})`, '=', value.toLowerCase())
    .executeTakeFirst();
  return row?.user_id;
}

export async function updateUser(db: Executor, tenant: string, userId: string, set: Updateable<UsersTable>): Promise<void> {
  await db.updateTable('users').set(set).where('tenant', '=', tenant).where('user_id', '=', userId).execute();
  await syncSearch(db, tenant, 'user', [userId]);
}

/** Bumps updated_at after a change stored outside the user row (its roles). */
export async function touchUser(db: Executor, tenant: string, userId: string, at: Date): Promise<void> {
  await db.updateTable('users').set({ updated_at: at }).where('tenant', '=', tenant).where('user_id', '=', userId).execute();
}

export async function deleteUser(db: Executor, tenant: string, userId: string): Promise<void> {
  await db.deleteFrom('users').where('tenant', '=', tenant).where('user_id', '=', userId).execute();
  await syncSearch(db, tenant, 'user', [userId]);
}

// ---- the API view: user columns (never hashes or secrets) plus the avatar's etag ----

const VIEW_COLUMNS = [
  'u.user_id', 'u.username', 'u.email', 'u.first_name', 'u.last_name', 'u.phone', 'u.timezone', 'u.user_type',
  'u.client_id', 'u.contact_id', 'u.is_inactive', 'u.two_factor_enabled', 'u.last_login_at', 'u.created_at', 'u.updated_at',
] as const;

export interface UserViewRow {
  user_id: string;
  username: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  timezone: string | null;
  user_type: UserType;
  client_id: string | null;
  contact_id: string | null;
  is_inactive: boolean;
  two_factor_enabled: boolean;
  last_login_at: Date | null;
  created_at: Date;
  updated_at: Date;
  avatar_etag: string | null;
}

export interface RoleRef {
  role_id: string;
  role_name: string;
}

/** Who a client-portal actor may see: users of their own client, and themself. */
export interface PortalScope {
  clientId: string;
  selfId: string;
}

type UsersEb = ExpressionBuilder<DB & { u: UsersTable }, 'u'>;

export const portalFilter = (scope: PortalScope) => (eb: UsersEb): Expression<SqlBool> =>
  eb.or([eb.and([eb('u.user_type', '=', 'client'), eb('u.client_id', '=', scope.clientId)]), eb('u.user_id', '=', scope.selfId)]);

function userView(db: Executor, tenant: string) {
  return db
    .selectFrom('users as u')
    .leftJoin('user_avatars as a', (j) => j.onRef('a.tenant', '=', 'u.tenant').onRef('a.user_id', '=', 'u.user_id'))
    .where('u.tenant', '=', tenant)
    .select(VIEW_COLUMNS)
    .select('a.etag as avatar_etag');
}

export async function findUserView(db: Executor, tenant: string, userId: string, lock = false): Promise<UserViewRow | undefined> {
  let q = userView(db, tenant).where('u.user_id', '=', userId);
  if (lock) q = q.forUpdate('u');
  return q.executeTakeFirst();
}

/** Each user's roles, by role name. */
export async function rolesOfUsers(db: Executor, tenant: string, userIds: readonly string[]): Promise<Map<string, RoleRef[]>> {
  const out = new Map<string, RoleRef[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom('user_roles as ur')
    .innerJoin('roles as r', (j) => j.onRef('r.tenant', '=', 'ur.tenant').onRef('r.role_id', '=', 'ur.role_id'))
    .select(['ur.user_id', 'r.role_id', 'r.role_name'])
    .where('ur.tenant', '=', tenant)
    .where('ur.user_id', 'in', [...userIds])
    .orderBy('r.role_name')
    .orderBy('r.role_id')
    .execute();
  for (const r of rows) out.get(r.user_id)?.push({ role_id: r.role_id, role_name: r.role_name });
  return out;
}

const matchesText = (text: string) => (eb: UsersEb): Expression<SqlBool> => {
  const p = likePattern(text);
  return eb.or([
    eb('u.username', 'ilike', p),
    eb('u.email', 'ilike', p),
    eb('u.first_name', 'ilike', p),
    eb('u.last_name', 'ilike', p),
    eb(sql<string>`coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')`, 'ilike', p),
  ]);
};

export interface UserListFilter {
  portal?: PortalScope;
  userType?: UserType;
  isInactive?: boolean;
  search?: string;
  roleId?: string;
  teamId?: string;
  clientId?: string;
}

function filteredUsers(db: Executor, tenant: string, f: UserListFilter) {
  let q = db.selectFrom('users as u').where('u.tenant', '=', tenant);
  if (f.portal) q = q.where(portalFilter(f.portal));
  if (f.userType !== undefined) q = q.where('u.user_type', '=', f.userType);
  if (f.isInactive !== undefined) q = q.where('u.is_inactive', '=', f.isInactive);
  if (f.clientId !== undefined) q = q.where('u.client_id', '=', f.clientId);
  if (f.search !== undefined) q = q.where(matchesText(f.search));
  if (f.roleId !== undefined) {
    const roleId = f.roleId;
    q = q.where('u.user_id', 'in', (eb) => eb.selectFrom('user_roles').select('user_id').where('tenant', '=', tenant).where('role_id', '=', roleId));
  }
  if (f.teamId !== undefined) {
    const teamId = f.teamId;
    q = q.where('u.user_id', 'in', (eb) => eb.selectFrom('team_members').select('user_id').where('tenant', '=', tenant).where('team_id', '=', teamId));
  }
  return q;
}

/** The user list: names and e-mail sort case-insensitively; users without a value sort last. */
export function userList(db: Executor, tenant: string, f: UserListFilter) {
  const filtered = filteredUsers(db, tenant, f);
  return defineList({
    from: filtered,
    page: userView(db, tenant).where('u.user_id', 'in', filtered.select('u.user_id')),
    sorts: {
      username: [sql`lower(u.username)`],
      email: [sql`lower(u.email)`],
      first_name: [{ by: 'u.first_name', nullsLast: true }],
      last_name: [{ by: 'u.last_name', nullsLast: true }],
      created_at: ['u.created_at'],
      updated_at: ['u.updated_at'],
      last_login_at: [{ by: 'u.last_login_at', nullsLast: true }],
    },
    defaultSort: 'username',
    defaultOrder: 'asc',
    tieBreaker: 'u.user_id',
    updatedAt: 'u.updated_at',
  });
}

/** Best matches first: exact username, then username prefix, then the rest by username. */
export async function searchUsers(
  db: Executor,
  tenant: string,
  f: { query: string; limit: number; userType?: UserType; includeInactive: boolean; portal?: PortalScope },
): Promise<UserViewRow[]> {
  let q = userView(db, tenant).where(matchesText(f.query));
  if (f.portal) q = q.where(portalFilter(f.portal));
  if (f.userType !== undefined) q = q.where('u.user_type', '=', f.userType);
  if (!f.includeInactive) q = q.where('u.is_inactive', '=', false);
  const lower = f.query.toLowerCase();
  const prefix = `${lower.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return q
    .orderBy(sql`lower(u.username) = ${lower}`, 'desc')
    .orderBy(sql`lower(u.username) like ${prefix}`, 'desc')
    .orderBy(sql`lower(u.username)`)
    .orderBy('u.user_id')
    .limit(f.limit)
    .execute();
}

export interface UserStatsRows {
  totals: { total: number; active: number; with_2fa: number; with_avatar: number; recent_logins: number; never_logged_in: number };
  byType: { user_type: UserType; n: number }[];
  byRole: { role_name: string; n: number }[];
}

export async function userStats(db: Executor, tenant: string, recentSince: Date, portal?: PortalScope): Promise<UserStatsRows> {
  const scoped = () => {
    let q = db.selectFrom('users as u').where('u.tenant', '=', tenant);
    if (portal) q = q.where(portalFilter(portal));
    return q;
  };
  const totals = scoped()
    .leftJoin('user_avatars as a', (j) => j.onRef('a.tenant', '=', 'u.tenant').onRef('a.user_id', '=', 'u.user_id'))
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.countAll<number>().filterWhere('u.is_inactive', '=', false).as('active'),
      eb.fn.countAll<number>().filterWhere('u.two_factor_enabled', '=', true).as('with_2fa'),
      eb.fn.count<number>('a.user_id').as('with_avatar'),
      eb.fn.countAll<number>().filterWhere('u.last_login_at', '>=', recentSince).as('recent_logins'),
      eb.fn.countAll<number>().filterWhere('u.last_login_at', 'is', null).as('never_logged_in'),
    ]);
  const byType = scoped().select((eb) => ['u.user_type', eb.fn.countAll<number>().as('n')]).groupBy('u.user_type');
  const byRole = scoped()
    .innerJoin('user_roles as ur', (j) => j.onRef('ur.tenant', '=', 'u.tenant').onRef('ur.user_id', '=', 'u.user_id'))
    .innerJoin('roles as r', (j) => j.onRef('r.tenant', '=', 'ur.tenant').onRef('r.role_id', '=', 'ur.role_id'))
    .select((eb) => ['r.role_name', eb.fn.count<number>('u.user_id').distinct().as('n')])
    .groupBy('r.role_name');
  const [t, types, roles] = await Promise.all([totals.executeTakeFirstOrThrow(), byType.execute(), byRole.execute()]);
  const num = (v: unknown) => Number(v);
  return {
    totals: {
      total: num(t.total),
      active: num(t.active),
      with_2fa: num(t.with_2fa),
      with_avatar: num(t.with_avatar),
      recent_logins: num(t.recent_logins),
      never_logged_in: num(t.never_logged_in),
    },
    byType: types.map((r) => ({ user_type: r.user_type, n: num(r.n) })),
    byRole: roles.map((r) => ({ role_name: r.role_name, n: num(r.n) })),
  };
}
