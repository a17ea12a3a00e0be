import type { RoleRow, RoleViewRow } from './roles.repo.ts';
import type { Role } from './roles.schemas.ts';
import type { AssignedRole } from './user-roles.schemas.ts';

/** Code-point order, the same on every database collation. */
export const sortedPermissions = (permissions: readonly string[]): string[] => [...new Set(permissions)].sort();

export function toRole(row: RoleViewRow): Role {
  return {
    role_id: row.role_id,
    role_name: row.role_name,
    description: row.description,
    is_builtin: row.is_builtin,
    is_client_portal: row.is_client_portal,
    permissions: sortedPermissions(row.permissions),
    user_count: Number(row.user_count),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const toAssignedRole = (row: Pick<RoleRow, 'role_id' | 'role_name' | 'description' | 'is_builtin' | 'is_client_portal'>): AssignedRole => ({
  role_id: row.role_id,
  role_name: row.role_name,
  description: row.description,
  is_builtin: row.is_builtin,
  is_client_portal: row.is_client_portal,
});

/** Roles ordered by name (case-insensitive), then id: the order every role list on a user uses. */
export const byRoleName = <T extends { role_name: string; role_id: string }>(a: T, b: T): number =>
  a.role_name.toLowerCase() < b.role_name.toLowerCase() ? -1 : a.role_name.toLowerCase() > b.role_name.toLowerCase() ? 1 : a.role_id < b.role_id ? -1 : a.role_id > b.role_id ? 1 : 0;
