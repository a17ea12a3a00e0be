import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';
import { ACTIVITY_TYPES } from './activity.repo.ts';

// ---- password ----

export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.Optional(Type.String({ maxLength: 1024, description: 'Required to change your own password (unless you have none yet)' })),
    new_password: Type.String({ minLength: 1, maxLength: 1024, description: 'Must meet the password policy' }),
  },
  { additionalProperties: false },
);
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const PasswordChanged = Type.Object({
  password_changed_at: Timestamp,
  sessions_revoked: Type.Integer({ minimum: 0, description: 'Sign-in sessions of the user that were ended' }),
});
export type PasswordChanged = Static<typeof PasswordChanged>;
export const PasswordChangedResponse = dataOf(PasswordChanged);

// ---- preferences ----

export const PREFERENCES_MAX_KEYS = 100;
export const PREFERENCES_MAX_BYTES = 16 * 1024;
export const PREFERENCE_KEY = '^[A-Za-z0-9._-]{1,64}$';

export const PreferencesPatch = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  patternProperties: { [PREFERENCE_KEY]: {} },
  additionalProperties: false,
  maxProperties: PREFERENCES_MAX_KEYS,
  description: `Merged into the stored settings; a key set to null is removed. Keys: 1–64 of A–Z a–z 0–9 . _ -; at most ${PREFERENCES_MAX_KEYS} keys and ${PREFERENCES_MAX_BYTES} bytes of JSON in all (413 beyond the size).`,
});

export const Preferences = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'The user’s settings: any JSON values, keys sorted',
});
export const PreferencesResponse = dataOf(Preferences);

// ---- activity ----

export const ActivityTypeSchema = Type.Enum([...ACTIVITY_TYPES]);

export const ActivityEntry = Type.Object({
  activity_id: Id,
  user_id: Id,
  actor_user_id: Nullable(Id),
  activity_type: Type.String(),
  details: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  created_at: Timestamp,
});
export type ActivityEntry = Static<typeof ActivityEntry>;

const activityFilters = {
  type: Type.Optional(ActivityTypeSchema),
  since: Type.Optional(Timestamp),
  until: Type.Optional(Timestamp),
};

export const UserActivityQuery = listQuery(['created_at'] as const, activityFilters);
export type UserActivityQuery = Static<typeof UserActivityQuery>;

export const TenantActivityQuery = listQuery(['created_at'] as const, {
  ...activityFilters,
  user_id: Type.Optional(Id),
  actor_user_id: Type.Optional(Id),
});
export type TenantActivityQuery = Static<typeof TenantActivityQuery>;

export const ActivityListResponse = listOf(ActivityEntry);
