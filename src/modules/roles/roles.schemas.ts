import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const PermissionName = Type.String({ pattern: '^[a-z_]+:[a-z_]+$', maxLength: 64, description: 'resource:action, from GET /api/v1/permissions' });

export const Role = Type.Object({
  role_id: Id,
  role_name: Type.String(),
  description: Nullable(Type.String()),
  is_builtin: Type.Boolean({ description: 'Built-in roles every tenant gets; they cannot be changed or deleted' }),
  is_client_portal: Type.Boolean({ description: 'Client-portal roles are given only to client users; internal roles only to everyone else' }),
  permissions: Type.Array(Type.String(), { description: 'resource:action, sorted' }),
  user_count: Type.Integer({ minimum: 0, description: 'Users holding the role (inactive users included)' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Role = Static<typeof Role>;

const roleName = Type.String({ minLength: 1, maxLength: 100, description: 'Trimmed; unique per tenant regardless of case' });
const description = Nullable(Type.String({ maxLength: 500 }));
const permissions = Type.Array(PermissionName, { maxItems: 200, uniqueItems: true });

export const CreateRoleBody = Type.Object(
  {
    role_name: roleName,
    description: Type.Optional(description),
    is_client_portal: Type.Optional(Type.Boolean({ description: 'Default false (or, with copy_from_role_id, the source role\'s flag)' })),
    permissions: Type.Optional(permissions),
    copy_from_role_id: Type.Optional(Id),
  },
  {
    additionalProperties: false,
    description:
      'Send `permissions` or `copy_from_role_id` (the new role starts with that role\'s permissions and, unless given, its is_client_portal); neither makes a role without permissions. You can only grant permissions you hold yourself.',
  },
);
export type CreateRoleBody = Static<typeof CreateRoleBody>;

export const UpdateRoleBody = Type.Object(
  {
    role_name: Type.Optional(roleName),
    description: Type.Optional(description),
    permissions: Type.Optional(Type.Array(PermissionName, { maxItems: 200, uniqueItems: true, description: 'Replaces the whole list' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; `permissions` replaces the list. Built-in roles cannot be changed.' },
);
export type UpdateRoleBody = Static<typeof UpdateRoleBody>;

export const ROLE_SORT_FIELDS = ['role_name', 'created_at', 'updated_at'] as const;
export type RoleSortField = (typeof ROLE_SORT_FIELDS)[number];

export const ListRolesQuery = listQuery(ROLE_SORT_FIELDS, {
  is_client_portal: Type.Optional(Type.Boolean()),
  is_builtin: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of the name or description; blank means no search' })),
});
export type ListRolesQuery = Static<typeof ListRolesQuery>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const PermissionGroup = Type.Object({
  resource: Type.String(),
  actions: Type.Array(Type.String()),
  permissions: Type.Array(Type.String(), { description: 'resource:action for each action' }),
  client_portal_allowed: Type.Array(Type.String(), { description: 'The subset a client-portal role may hold' }),
});

export const RoleResponse = dataOf(Role);
export const RoleListResponse = listOf(Role);
export const PermissionCatalogueResponse = Type.Object({ data: Type.Array(PermissionGroup) });
