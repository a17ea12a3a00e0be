import type { RoleRef, UserViewRow } from './users.repo.ts';
import type { User } from './users.schemas.ts';

export const avatarUrl = (userId: string, etag: string | null): string | null =>
  etag === null ? null : `/api/v1/users/${userId}/avatar?v=${etag}`;

export function toUser(row: UserViewRow, roles: readonly RoleRef[]): User {
  return {
    user_id: row.user_id,
    username: row.username,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    timezone: row.timezone,
    user_type: row.user_type,
    client_id: row.client_id,
    contact_id: row.contact_id,
    is_inactive: row.is_inactive,
    two_factor_enabled: row.two_factor_enabled,
    image: avatarUrl(row.user_id, row.avatar_etag),
    last_login_at: row.last_login_at?.toISOString() ?? null,
    roles: roles.map((r) => ({ role_id: r.role_id, role_name: r.role_name })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
