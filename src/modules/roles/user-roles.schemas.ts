import { Type, type Static } from 'typebox';
import { Id, Nullable, Pagination, listQuery } from '../../platform/http/schemas.ts';

/** A role as it appears on a user. */
export const AssignedRole = Type.Object({
  role_id: Id,
  role_name: Type.String(),
  description: Nullable(Type.String()),
  is_builtin: Type.Boolean(),
  is_client_portal: Type.Boolean(),
});
export type AssignedRole = Static<typeof AssignedRole>;

const roleIds = (minItems: number, description: string) =>
  Type.Array(Id, { minItems, maxItems: 100, uniqueItems: true, description });

export const AddRolesBody = Type.Object(
  { role_ids: roleIds(1, 'Roles to add; ones the user already holds are left as they are') },
  { additionalProperties: false },
);
export const ReplaceRolesBody = Type.Object(
  { role_ids: roleIds(0, 'The complete new set; an empty list removes every role') },
  { additionalProperties: false },
);
export const RemoveRolesBody = Type.Object(
  { role_ids: Type.Optional(roleIds(1, 'Roles to remove; ones the user does not hold are ignored')) },
  { additionalProperties: false, description: 'The role ids travel in this JSON body, or (for clients that cannot send a DELETE body) in the `role_ids` query parameter — not both' },
);
export type RoleIdsBody = Static<typeof AddRolesBody>;
export type RemoveRolesBody = Static<typeof RemoveRolesBody>;

export const RemoveRolesQuery = Type.Object(
  {
    role_ids: Type.Optional(
      Type.String({
        maxLength: 3700,
        pattern: '^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36})*$',
        description: 'Comma-separated role ids (the alternative to the JSON body)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RemoveRolesQuery = Static<typeof RemoveRolesQuery>;

export const UserRolesResponse = Type.Object({ data: Type.Array(AssignedRole, { description: 'Sorted by role name' }) });
export const UserPermissionsResponse = Type.Object({
  data: Type.Array(Type.String(), { description: 'Effective resource:action permissions: the union over the user\'s roles, sorted' }),
});

export const USER_ROLES_SORT_FIELDS = ['username', 'email', 'created_at'] as const;
export type UserRolesSortField = (typeof USER_ROLES_SORT_FIELDS)[number];

/** The list parameters every list has (sorted by username unless `sort` says otherwise), plus search and is_inactive. */
export const ListUserRolesQuery = listQuery(USER_ROLES_SORT_FIELDS, {
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of username, first or last name, full name or email; blank means no search' })),
  is_inactive: Type.Optional(Type.Boolean({ description: 'true: only inactive users; false: only active ones; absent: all users' })),
});
export type ListUserRolesQuery = Static<typeof ListUserRolesQuery>;

export const UserWithRoles = Type.Object({
  user_id: Id,
  username: Type.String(),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  is_inactive: Type.Boolean(),
  roles: Type.Array(Type.Object({ role_id: Id, role_name: Type.String(), description: Nullable(Type.String()) }), { description: 'Sorted by role name' }),
});
export type UserWithRoles = Static<typeof UserWithRoles>;

export const UserRolesListResponse = Type.Object({ data: Type.Array(UserWithRoles), pagination: Pagination });
