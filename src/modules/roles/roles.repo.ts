import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { RolesTable } from '../../platform/db/schema.ts';
import { likePattern } from '../../platform/db/like.ts';
import { defineList } from '../../platform/http/list.ts';

export type RoleRow = Selectable<RolesTable>;

/** A role with its sorted permissions and how many users hold it. */
export interface RoleViewRow extends RoleRow {
  permissions: string[];
  user_count: number;
}

const VIEW_COLUMNS = [
  sql<string[]>`coalesce((select array_agg(rp.permission) from role_permissions rp
    where rp.tenant = r.tenant and rp.role_id = r.role_id), '{}')`.as('permissions'),
  sql<number>`(select count(*) from user_roles ur where ur.tenant = r.tenant and ur.role_id = r.role_id)::int`.as('user_count'),
];

function roleView(db: Executor, tenant: string) {
  return db.selectFrom('roles as r').where('r.tenant', '=', tenant).selectAll('r').select(VIEW_COLUMNS);
}

export async function findRoleView(db: Executor, tenant: string, roleId: string): Promise<RoleViewRow | undefined> {
  return roleView(db, tenant).where('r.role_id', '=', roleId).executeTakeFirst();
}

/** Locks the role row so concurrent changes to it (or to who holds it) queue behind this transaction. */
export async function lockRole(db: Executor, tenant: string, roleId: string): Promise<RoleRow | undefined> {
  return db.selectFrom('roles').selectAll().where('tenant', '=', tenant).where('role_id', '=', roleId).forUpdate().executeTakeFirst();
}

export async function findRoleIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('roles')
    .select('role_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(role_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.role_id;
}

export async function findRolesByIds(db: Executor, tenant: string, roleIds: readonly string[]): Promise<RoleRow[]> {
  if (roleIds.length === 0) return [];
  return db.selectFrom('roles').selectAll().where('tenant', '=', tenant).where('role_id', 'in', roleIds).execute();
}

export async function permissionsOfRoles(db: Executor, tenant: string, roleIds: readonly string[]): Promise<string[]> {
  if (roleIds.length === 0) return [];
  const rows = await db
    .selectFrom('role_permissions')
    .select('permission')
    .distinct()
    .where('tenant', '=', tenant)
    .where('role_id', 'in', roleIds)
    .orderBy('permission')
    .execute();
  return rows.map((r) => r.permission);
}

export async function insertRole(db: Executor, row: Insertable<RolesTable>): Promise<void> {
  await db.insertInto('roles').values(row).execute();
}

export async function insertRolePermissions(db: Executor, tenant: string, roleId: string, permissions: readonly string[]): Promise<void> {
  await db.insertInto('role_permissions').values(permissions.map((permission) => ({ tenant, role_id: roleId, permission }))).execute();
}

export async function updateRole(db: Executor, tenant: string, roleId: string, set: Updateable<RolesTable>): Promise<void> {
  await db.updateTable('roles').set(set).where('tenant', '=', tenant).where('role_id', '=', roleId).execute();
}

export async function deleteRole(db: Executor, tenant: string, roleId: string): Promise<void> {
  await db.deleteFrom('roles').where('tenant', '=', tenant).where('role_id', '=', roleId).execute();
}

export async function replaceRolePermissions(db: Executor, tenant: string, roleId: string, permissions: readonly string[]): Promise<void> {
  await db.deleteFrom('role_permissions').where('tenant', '=', tenant).where('role_id', '=', roleId).execute();
  if (permissions.length > 0) {
    await db.insertInto('role_permissions').values(permissions.map((permission) => ({ tenant, role_id: roleId, permission }))).execute();
  }
}

export interface RoleListFilter {
  isClientPortal?: boolean;
  isBuiltin?: boolean;
  search?: string;
}

function filteredRoles(db: Executor, tenant: string, f: RoleListFilter) {
  let q = db.selectFrom('roles as r').where('r.tenant', '=', tenant);
  if (f.isClientPortal !== undefined) q = q.where('r.is_client_portal', '=', f.isClientPortal);
  if (f.isBuiltin !== undefined) q = q.where('r.is_builtin', '=', f.isBuiltin);
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) => eb.or([eb('r.role_name', 'ilike', p), eb('r.description', 'ilike', p)]));
  }
  return q;
}

/** Ties break on role_id in the requested direction. */
export function roleList(db: Executor, tenant: string, f: RoleListFilter) {
  return defineList({
    from: filteredRoles(db, tenant, f),
    page: filteredRoles(db, tenant, f).selectAll('r').select(VIEW_COLUMNS),
    sorts: { role_name: [sql`lower(r.role_name)`], created_at: ['r.created_at'], updated_at: ['r.updated_at'] },
    defaultSort: 'role_name',
    defaultOrder: 'asc',
    tieBreaker: 'r.role_id',
    updatedAt: 'r.updated_at',
  });
}
