import type { Kysely, Transaction, Updateable } from 'kysely';
import { can, requirePermission, type Actor } from '../../platform/auth/context.ts';
import { notifyAuthChange, type KeyCache } from '../../platform/auth/key-cache.ts';
import { withTransaction, type Executor } from '../../platform/db/executor.ts';
import type { DB, UsersTable } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { AppError, conflict } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { recordActivity } from './activity.repo.ts';
import type { UserLifecycle } from './lifecycle.ts';
import { assertAdminRemains } from './admins.ts';
import { portalScope, requireSelfOr, requireVisibleUser, type RequestMeta } from './users.access.ts';
import { USER_EVENTS, emitUserEvent, emitUserUpdated } from './users.events.ts';
import { toUser } from './users.mapper.ts';
import {
  deleteUser,
  userList,
  rolesOfUsers,
  searchUsers,
  updateUser,
  userStats,
  type UserViewRow,
} from './users.repo.ts';
import { assertClientRule, assertUnique, emailOf, optionalText, timeZone } from './users.rules.ts';
import {
  SELF_SERVICE_FIELDS,
  USER_TYPES,
  type CreateUserBody,
  type ListUsersQuery,
  type SearchUsersQuery,
  type UpdateUserBody,
  type User,
  type UserStats,
} from './users.schemas.ts';
import { assertCanDeactivate, insertPreparedUser, prepareUser, recordActiveChange } from './users.writes.ts';

const RECENT_LOGIN_DAYS = 30;

/** Maps rows to API users with their roles, in one query for all of them. */
export async function toUsers(db: Executor, tenant: string, rows: UserViewRow[]): Promise<User[]> {
  const roles = await rolesOfUsers(db, tenant, rows.map((r) => r.user_id));
  return rows.map((r) => toUser(r, roles.get(r.user_id) ?? []));
}

export const toOneUser = async (db: Executor, tenant: string, row: UserViewRow): Promise<User> => (await toUsers(db, tenant, [row]))[0]!;

/** The body's user columns, normalised; undefined where the body says nothing. */
function userUpdate(body: UpdateUserBody): Updateable<UsersTable> {
  return {
    first_name: optionalText(body.first_name),
    last_name: optionalText(body.last_name),
    phone: optionalText(body.phone),
    timezone: timeZone(body.timezone, 'body.timezone'),
    username: body.username,
    email: body.email === undefined ? undefined : emailOf(body.email),
    user_type: body.user_type,
    is_inactive: body.is_inactive,
  };
}

/** Who may send which fields: yourself the profile fields; anything else needs user:update. */
function assertMayUpdate(actor: Actor, id: string, body: UpdateUserBody): void {
  if (id !== actor.userId) return requirePermission(actor, 'user:update');
  const restricted = Object.keys(body).filter((k) => !(SELF_SERVICE_FIELDS as readonly string[]).includes(k));
  if (restricted.length > 0 && !can(actor, 'user:update')) {
    throw new AppError('FORBIDDEN', `Changing your own ${restricted.join(', ')} needs the permission user:update (you may change ${SELF_SERVICE_FIELDS.join(', ')})`, {
      required: ['user:update'],
    });
  }
}

export function createUsersService(deps: { db: Kysely<DB>; keyCache: KeyCache; lifecycle: UserLifecycle }) {
  const { db, keyCache } = deps;

  return {
    async list(actor: Actor, query: ListUsersQuery) {
      const filter = {
        portal: portalScope(actor),
        userType: query.user_type,
        isInactive: query.is_inactive,
        search: query.search?.trim() || undefined,
        roleId: query.role_id,
        teamId: query.team_id,
        clientId: query.client_id,
      };
      return listPage(query, userList(db, actor.tenant, filter), (rows) => toUsers(db, actor.tenant, rows));
    },

    async search(actor: Actor, query: SearchUsersQuery): Promise<User[]> {
      const text = query.query.trim();
      if (text === '') return [];
      const rows = await searchUsers(db, actor.tenant, {
        query: text,
        limit: query.limit ?? 25,
        userType: query.user_type,
        includeInactive: query.include_inactive ?? false,
        portal: portalScope(actor),
      });
      return toUsers(db, actor.tenant, rows);
    },

    async stats(actor: Actor): Promise<UserStats> {
      const since = new Date(Date.now() - RECENT_LOGIN_DAYS * 24 * 60 * 60 * 1000);
      const { totals, byType, byRole } = await userStats(db, actor.tenant, since, portalScope(actor));
      return {
        total_users: totals.total,
        active_users: totals.active,
        inactive_users: totals.total - totals.active,
        users_by_type: { ...Object.fromEntries(USER_TYPES.map((t) => [t, 0])), ...Object.fromEntries(byType.map((r) => [r.user_type, r.n])) },
        users_by_role: Object.fromEntries(byRole.map((r) => [r.role_name, r.n])),
        users_with_2fa: totals.with_2fa,
        users_with_avatar: totals.with_avatar,
        recent_logins: totals.recent_logins,
        never_logged_in: totals.never_logged_in,
      };
    },

    async get(actor: Actor, id: string): Promise<User> {
      requireSelfOr(actor, id, 'user:read');
      return toOneUser(db, actor.tenant, await requireVisibleUser(db, actor, id));
    },

    /** Creates a user without roles; client users need their client. */
    async create(actor: Actor, body: CreateUserBody, meta: RequestMeta): Promise<User> {
      const prepared = await prepareUser(actor, body, 'body');
      return withTransaction(db, async (trx) => toOneUser(trx, actor.tenant, await insertPreparedUser(trx, actor, prepared, meta, 'body')));
    },

    /** Partial update. A no-op changes nothing; deactivation ends sessions; auth-relevant changes reach API keys at once. */
    async update(actor: Actor, id: string, body: UpdateUserBody, ifMatch: string | undefined, meta: RequestMeta): Promise<User> {
      assertMayUpdate(actor, id, body);
      const next = userUpdate(body);
      const result = await withTransaction(db, async (trx) => {
        const current = await requireVisibleUser(trx, actor, id, true);
        const before = await toOneUser(trx, actor.tenant, current);
        assertIfMatch(ifMatch, before);

        const changes: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== current[k as keyof UserViewRow]) changes[k] = v;
        const userType = body.user_type ?? current.user_type;
        const clientId = body.client_id !== undefined ? body.client_id : userType === 'client' ? current.client_id : null;
        if (clientId !== current.client_id) changes.client_id = clientId;
        if (changes.user_type !== undefined || changes.client_id !== undefined) await assertClientRule(trx, actor, userType, clientId, 'body');
        if (typeof changes.username === 'string') await assertUnique(trx, actor.tenant, 'username', changes.username, id);
        if (typeof changes.email === 'string') await assertUnique(trx, actor.tenant, 'email', changes.email, id);
        if (changes.is_inactive === true) await assertCanDeactivate(trx, actor, id);
        const changed = Object.keys(changes);
        if (changed.length === 0) return { user: before, authChanged: false };

        await updateUser(trx, actor.tenant, id, { ...(changes as Updateable<UsersTable>), updated_at: new Date() });
        if (changes.is_inactive !== undefined) await recordActiveChange(trx, deps.lifecycle, actor, id, changes.is_inactive === false, meta);
        const profile = changed.filter((k) => k !== 'is_inactive');
        if (profile.length > 0) {
          await recordActivity(trx, {
            tenant: actor.tenant,
            user_id: id,
            actor_user_id: actor.userId,
            activity_type: 'profile_update',
            details: { changed_fields: profile },
            ip: meta.ip,
            user_agent: meta.userAgent,
          });
        }
        const authChanged = ['is_inactive', 'user_type', 'client_id'].some((k) => k in changes);
        if (authChanged) await notifyAuthChange(trx, actor.tenant);
        await emitUserUpdated(trx, actor.tenant, id, changed);
        return { user: await toOneUser(trx, actor.tenant, await requireVisibleUser(trx, actor, id)), authChanged };
      });
      if (result.authChanged) keyCache.invalidateTenant(actor.tenant);
      return result.user;
    },

    /** Removes the user with their keys, sessions, roles, memberships and avatar; teams they managed lose their manager. */
    async remove(actor: Actor, id: string, ifMatch: string | undefined, meta: RequestMeta): Promise<void> {
      if (id === actor.userId) throw conflict('You cannot delete your own account');
      await withTransaction(db, async (trx: Transaction<DB>) => {
        const current = await requireVisibleUser(trx, actor, id, true);
        assertIfMatch(ifMatch, await toOneUser(trx, actor.tenant, current));
        if (!current.is_inactive) await assertAdminRemains(trx, actor.tenant, [id], 'Deleting this user');
        await deps.lifecycle.beforeDelete(trx, actor.tenant, id);
        await recordActivity(trx, {
          tenant: actor.tenant,
          user_id: id,
          actor_user_id: actor.userId,
          activity_type: 'user_deleted',
          details: { username: current.username },
          ip: meta.ip,
          user_agent: meta.userAgent,
        });
        await deleteUser(trx, actor.tenant, id);
        await emitUserEvent(trx, actor.tenant, USER_EVENTS.deleted, id);
        await notifyAuthChange(trx, actor.tenant);
      });
      keyCache.invalidateTenant(actor.tenant);
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
