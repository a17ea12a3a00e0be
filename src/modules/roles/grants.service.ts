import type { Executor } from '../../platform/db/executor.ts';
import { builtinRoles } from '../../platform/auth/permissions.ts';
import { newId } from '../../platform/ids.ts';
import { insertRole, insertRolePermissions, permissionsOfRoles as repoPermissionsOfRoles } from './roles.repo.ts';
import { addUserRoles } from './user-roles.repo.ts';
import { ADMIN_ROLE_NAME } from './roles.rules.ts';

/**
 * Roles as other areas use them: a new tenant's built-in roles, the role of a user provisioned outside
 * the user-roles routes, and what a set of roles grants. Each takes the caller's executor so it joins the
 * caller's transaction; none records activity or emits events (the callers provision, they do not act).
 */

/** Inserts the built-in roles with their permissions into a new tenant; returns the Admin role's id. */
export async function seedBuiltinRoles(trx: Executor, tenant: string): Promise<string> {
  let adminRoleId = '';
  for (const role of builtinRoles()) {
    const role_id = newId();
    if (role.role_name === ADMIN_ROLE_NAME) adminRoleId = role_id;
    await insertRole(trx, { tenant, role_id, role_name: role.role_name, description: role.description, is_builtin: true, is_client_portal: role.is_client_portal });
    await insertRolePermissions(trx, tenant, role_id, role.permissions);
  }
  return adminRoleId;
}

/** Gives the user the role; holding it already is no error. */
export function assignRole(db: Executor, tenant: string, userId: string, roleId: string): Promise<void> {
  return addUserRoles(db, tenant, userId, [roleId]);
}

/** The distinct permissions the roles grant, sorted. */
export function permissionsOfRoles(db: Executor, tenant: string, roleIds: readonly string[]): Promise<string[]> {
  return repoPermissionsOfRoles(db, tenant, roleIds);
}
