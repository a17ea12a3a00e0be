import type { Kysely } from 'kysely';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { AppError, conflict, notFound, validation } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { activityList, recordActivity, type ActivityRow } from './activity.repo.ts';
import type { UserLifecycle } from './lifecycle.ts';
import {
  PREFERENCES_MAX_BYTES,
  PREFERENCES_MAX_KEYS,
  type ActivityEntry,
  type ChangePasswordBody,
  type PasswordChanged,
  type TenantActivityQuery,
  type UserActivityQuery,
} from './account.schemas.ts';
import { checkPassword } from './password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { portalScope, requireSelfOr, requireVisibleUser, type RequestMeta } from './users.access.ts';
import { emitUserUpdated } from './users.events.ts';
import { findUserById, updateUser } from './users.repo.ts';
import { toOneUser } from './users.service.ts';

/** Keys sorted at every level, so a settings object has one representation (and one ETag). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortedKeys(v)]));
}

const toPreferences = (stored: unknown): Record<string, unknown> =>
  stored && typeof stored === 'object' && !Array.isArray(stored) ? (sortedKeys(stored) as Record<string, unknown>) : {};

export function toActivityEntry(row: ActivityRow): ActivityEntry {
  return {
    activity_id: row.activity_id,
    user_id: row.user_id,
    actor_user_id: row.actor_user_id,
    activity_type: row.activity_type,
    details: row.details ?? {},
    ip: row.ip,
    user_agent: row.user_agent,
    created_at: row.created_at.toISOString(),
  };
}

const latest = (...dates: (string | undefined)[]): Date | undefined => {
  const ts = dates.filter((d): d is string => d !== undefined).map((d) => new Date(d).getTime());
  return ts.length ? new Date(Math.max(...ts)) : undefined;
};

/** A user's own account: password, preferences and activity log. Self-service; others need user:*. */
export function createAccountService(deps: { db: Kysely<DB>; lifecycle: UserLifecycle }) {
  const { db } = deps;

  const activityPage = async (actor: Actor, query: UserActivityQuery | TenantActivityQuery, scope: { userId?: string; actorUserId?: string }) => {
    if (query.since && query.until && new Date(query.since) >= new Date(query.until)) throw validation('querystring.until', 'must be later than since');
    const filter = {
      ...scope,
      portal: portalScope(actor),
      type: query.type,
      since: latest(query.since, query.updated_since),
      until: query.until ? new Date(query.until) : undefined,
    };
    return listPage({ ...query, updated_since: undefined }, activityList(db, actor.tenant, filter), (rows) => rows.map(toActivityEntry));
  };

  return {
    /**
     * Your own password needs the current one (unless you have none yet); someone else's needs
     * user:update. Every sign-in session of the user ends.
     */
    async changePassword(actor: Actor, id: string, body: ChangePasswordBody, ifMatch: string | undefined, meta: RequestMeta): Promise<PasswordChanged> {
      const self = id === actor.userId;
      if (!self) requirePermission(actor, 'user:update');
      await requireVisibleUser(db, actor, id);
      const user = await findUserById(db, actor.tenant, id);
      if (!user) throw notFound('User', id);
      if (self && user.password_hash !== null) {
        if (body.current_password === undefined) throw validation('body.current_password', 'is required to change your own password');
        if (!(await verifyPassword(user.password_hash, body.current_password))) throw validation('body.current_password', 'is not your current password');
        if (body.current_password === body.new_password) throw validation('body.new_password', 'must differ from the current password');
      }
      checkPassword(body.new_password, user, 'body.new_password');
      const passwordHash = await hashPassword(body.new_password);

      return withTransaction(db, async (trx) => {
        const view = await requireVisibleUser(trx, actor, id, true);
        const locked = await findUserById(trx, actor.tenant, id);
        if (!locked) throw notFound('User', id);
        if (self && locked.password_hash !== user.password_hash) throw conflict('The password was changed by another request meanwhile; try again');
        if (ifMatch !== undefined) assertIfMatch(ifMatch, await toOneUser(trx, actor.tenant, view));
        const now = new Date();
        await updateUser(trx, actor.tenant, id, { password_hash: passwordHash, password_changed_at: now, failed_login_count: 0, locked_until: null });
        const sessionsRevoked = await deps.lifecycle.revokeSignIn(trx, actor.tenant, id);
        await recordActivity(trx, {
          tenant: actor.tenant,
          user_id: id,
          actor_user_id: actor.userId,
          activity_type: 'password_change',
          details: { reset_by_other_user: !self, sessions_revoked: sessionsRevoked },
          ip: meta.ip,
          user_agent: meta.userAgent,
        });
        await emitUserUpdated(trx, actor.tenant, id, ['password']);
        return { password_changed_at: now.toISOString(), sessions_revoked: sessionsRevoked };
      });
    },

    async getPreferences(actor: Actor, id: string): Promise<Record<string, unknown>> {
      requireSelfOr(actor, id, 'user:read');
      await requireVisibleUser(db, actor, id);
      return toPreferences((await findUserById(db, actor.tenant, id))?.preferences);
    },

    /** Merges `patch` into the stored settings; null removes a key. Bounded in keys (400) and bytes (413). */
    async updatePreferences(actor: Actor, id: string, patch: Record<string, unknown>, ifMatch: string | undefined): Promise<Record<string, unknown>> {
      requireSelfOr(actor, id, 'user:update');
      return withTransaction(db, async (trx) => {
        await requireVisibleUser(trx, actor, id, true);
        const current = toPreferences((await findUserById(trx, actor.tenant, id))?.preferences);
        assertIfMatch(ifMatch, current);
        const merged = new Map(Object.entries(current));
        for (const [k, v] of Object.entries(patch)) {
          if (v === null) merged.delete(k);
          else merged.set(k, v);
        }
        if (merged.size > PREFERENCES_MAX_KEYS) {
          throw validation('body', `preferences hold at most ${PREFERENCES_MAX_KEYS} keys; this change would make ${merged.size}`);
        }
        const next = toPreferences(Object.fromEntries(merged));
        const json = JSON.stringify(next);
        const bytes = Buffer.byteLength(json);
        if (bytes > PREFERENCES_MAX_BYTES) {
          throw new AppError('PAYLOAD_TOO_LARGE', `preferences hold at most ${PREFERENCES_MAX_BYTES} bytes of JSON; this change would make ${bytes}`, {
            limit_bytes: PREFERENCES_MAX_BYTES,
            size_bytes: bytes,
          });
        }
        if (json !== JSON.stringify(current)) await updateUser(trx, actor.tenant, id, { preferences: json });
        return next;
      });
    },

    async userActivity(actor: Actor, id: string, query: UserActivityQuery) {
      requireSelfOr(actor, id, 'user:read');
      await requireVisibleUser(db, actor, id);
      return activityPage(actor, query, { userId: id });
    },

    async tenantActivity(actor: Actor, query: TenantActivityQuery) {
      return activityPage(actor, query, { userId: query.user_id, actorUserId: query.actor_user_id });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
