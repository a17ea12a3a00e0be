import { Type, type Static, type TSchema } from 'typebox';
import { Email, Id, Nullable, Phone, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import type { UsersTable } from '../../platform/db/schema.ts';

export type UserType = UsersTable['user_type'];
export const USER_TYPES: readonly UserType[] = ['internal', 'client', 'admin', 'contractor'];
const UserTypeSchema = Type.Enum([...USER_TYPES], { description: 'client users belong to one client (client_id) and see only its records' });

export const UserRoleRef = Type.Object({ role_id: Id, role_name: Type.String() });

export const User = Type.Object({
  user_id: Id,
  username: Type.String(),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  timezone: Nullable(Type.String({ description: 'IANA time zone name' })),
  user_type: UserTypeSchema,
  client_id: Nullable(Id),
  contact_id: Nullable(Id),
  is_inactive: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  image: Nullable(Type.String({ description: 'Avatar URL (/api/v1/users/{id}/avatar?v=<etag>), null without an avatar' })),
  last_login_at: Nullable(Timestamp),
  roles: Type.Array(UserRoleRef),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type User = Static<typeof User>;

export const Username = Type.String({
  minLength: 3,
  maxLength: 50,
  pattern: '^[A-Za-z0-9._@-]+$',
  description: '3–50 of A–Z a–z 0–9 . _ @ -; unique per tenant regardless of case',
});
const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'See the password policy: 12–128 characters, not the username or e-mail, not common, not a run' });
const PersonName = Nullable(Type.String({ maxLength: 100 }));
const TimeZone = Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name such as Europe/Berlin' }));

const optional = <P extends Record<string, TSchema>>(props: P) =>
  Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(v)])) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> };

/** Fields a user may change on their own profile without user:update. */
export const SELF_SERVICE_FIELDS = ['first_name', 'last_name', 'phone', 'timezone'] as const;

const profileFields = {
  first_name: PersonName,
  last_name: PersonName,
  phone: Nullable(Phone),
  timezone: TimeZone,
};

export const CreateUserBody = Type.Object(
  {
    username: Username,
    email: Email,
    password: Password,
    ...optional(profileFields),
    user_type: Type.Optional(UserTypeSchema),
    client_id: Type.Optional(Nullable(Id)),
  },
  { additionalProperties: false, description: 'A new user has no roles; assign them with PUT /api/v1/users/{id}/roles. client users need client_id.' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    ...optional(profileFields),
    username: Type.Optional(Username),
    email: Type.Optional(Email),
    user_type: Type.Optional(UserTypeSchema),
    client_id: Type.Optional(Nullable(Id)),
    is_inactive: Type.Optional(Type.Boolean({ description: 'true deactivates (ends sessions, API keys stop working); false reactivates' })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'Partial update. Your own first_name, last_name, phone and timezone need no permission; anything else, or another user, needs user:update.',
  },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const USER_SORT_FIELDS = ['username', 'email', 'first_name', 'last_name', 'created_at', 'updated_at', 'last_login_at'] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];

export const ListUsersQuery = listQuery(USER_SORT_FIELDS, {
  user_type: Type.Optional(UserTypeSchema),
  is_inactive: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of username, e-mail, first, last or full name' })),
  role_id: Type.Optional(Id),
  team_id: Type.Optional(Id),
  client_id: Type.Optional(Id),
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const SearchUsersQuery = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 100, description: 'Matched (case-insensitive substring) against username, first, last and full name and e-mail' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    user_type: Type.Optional(UserTypeSchema),
    include_inactive: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type SearchUsersQuery = Static<typeof SearchUsersQuery>;

const count = Type.Integer({ minimum: 0 });
export const UserStats = Type.Object({
  total_users: count,
  active_users: count,
  inactive_users: count,
  users_by_type: Type.Object(Object.fromEntries(USER_TYPES.map((k) => [k, count]))),
  users_by_role: Type.Record(Type.String(), count, { description: 'role_name → number of users holding it' }),
  users_with_2fa: count,
  users_with_avatar: count,
  recent_logins: Type.Integer({ minimum: 0, description: 'Users who signed in during the last 30 days' }),
  never_logged_in: count,
});
export type UserStats = Static<typeof UserStats>;

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const UserResponse = dataOf(User);
export const UserListResponse = listOf(User);
export const UserSearchResponse = dataOf(Type.Array(User));
export const UserStatsResponse = dataOf(UserStats);
