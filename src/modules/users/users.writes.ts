import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { conflict } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { recordActivity } from './activity.repo.ts';
import { assertAdminRemains } from './admins.ts';
import { checkPassword } from './password-policy.ts';
import { hashPassword } from './passwords.ts';
import type { UserLifecycle } from './lifecycle.ts';
import type { RequestMeta } from './users.access.ts';
import { USER_EVENTS, emitUserEvent, emitUserUpdated } from './users.events.ts';
import { findUserView, insertUser, updateUser, type UserViewRow } from './users.repo.ts';
import { assertClientRule, assertUnique, emailOf, optionalText, timeZone } from './users.rules.ts';
import type { CreateUserBody, UserType } from './users.schemas.ts';

/**
 * The use-case steps single and bulk writes share. Each runs inside the caller's transaction; the
 * caller calls notifyAuthChange and invalidates the key cache when a step says auth changed.
 */

export interface PreparedUser {
  username: string;
  email: string;
  passwordHash: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  timezone: string | null;
  user_type: UserType;
  client_id: string | null;
}

/** Checks and normalises a create body and hashes its password: everything that needs no database. */
export async function prepareUser(actor: Actor, body: CreateUserBody, path: string): Promise<PreparedUser> {
  const email = emailOf(body.email);
  const userType = body.user_type ?? (actor.clientId ? 'client' : 'internal');
  const prepared = {
    username: body.username,
    email,
    first_name: optionalText(body.first_name) ?? null,
    last_name: optionalText(body.last_name) ?? null,
    phone: optionalText(body.phone) ?? null,
    timezone: timeZone(body.timezone, `${path}.timezone`) ?? null,
    user_type: userType,
    client_id: body.client_id !== undefined ? body.client_id : userType === 'client' ? (actor.clientId ?? null) : null,
  };
  checkPassword(body.password, { username: body.username, email }, `${path}.password`);
  return { ...prepared, passwordHash: await hashPassword(body.password) };
}

/** Inserts a prepared user (no roles), records user_created and emits user.created. */
export async function insertPreparedUser(trx: Transaction<DB>, actor: Actor, p: PreparedUser, meta: RequestMeta, path: string): Promise<UserViewRow> {
  await assertClientRule(trx, actor, p.user_type, p.client_id, path);
  await assertUnique(trx, actor.tenant, 'username', p.username);
  await assertUnique(trx, actor.tenant, 'email', p.email);
  const now = new Date();
  const userId = newId();
  await insertUser(trx, {
    tenant: actor.tenant,
    user_id: userId,
    username: p.username,
    email: p.email,
    password_hash: p.passwordHash,
    first_name: p.first_name,
    last_name: p.last_name,
    phone: p.phone,
    timezone: p.timezone,
    user_type: p.user_type,
    client_id: p.client_id,
    contact_id: null,
    password_changed_at: now,
    created_at: now,
    updated_at: now,
  });
  await recordActivity(trx, {
    tenant: actor.tenant,
    user_id: userId,
    actor_user_id: actor.userId,
    activity_type: 'user_created',
    details: { username: p.username, user_type: p.user_type },
    ip: meta.ip,
    user_agent: meta.userAgent,
  });
  await emitUserEvent(trx, actor.tenant, USER_EVENTS.created, userId, { user_type: p.user_type, client_id: p.client_id });
  return (await findUserView(trx, actor.tenant, userId))!;
}

/** Deactivation refuses yourself and the last active Admin (409). */
export async function assertCanDeactivate(trx: Transaction<DB>, actor: Actor, userId: string): Promise<void> {
  if (userId === actor.userId) throw conflict('You cannot deactivate your own account');
  await assertAdminRemains(trx, actor.tenant, [userId], 'Deactivating this user');
}

/** What follows a change of is_inactive: a deactivated user's sessions end; either way it is recorded. */
export async function recordActiveChange(trx: Transaction<DB>, lifecycle: UserLifecycle, actor: Actor, userId: string, active: boolean, meta: RequestMeta): Promise<void> {
  const sessionsRevoked = active ? 0 : await lifecycle.revokeSignIn(trx, actor.tenant, userId);
  await recordActivity(trx, {
    tenant: actor.tenant,
    user_id: userId,
    actor_user_id: actor.userId,
    activity_type: active ? 'user_activated' : 'user_deactivated',
    details: active ? {} : { sessions_revoked: sessionsRevoked },
    ip: meta.ip,
    user_agent: meta.userAgent,
  });
}

/** Deactivates or reactivates a (locked) user; false when it already was in that state. */
export async function setUserActive(trx: Transaction<DB>, lifecycle: UserLifecycle, actor: Actor, user: UserViewRow, active: boolean, meta: RequestMeta): Promise<boolean> {
  if (user.is_inactive === !active) return false;
  if (!active) await assertCanDeactivate(trx, actor, user.user_id);
  await updateUser(trx, actor.tenant, user.user_id, { is_inactive: !active, updated_at: new Date() });
  await recordActiveChange(trx, lifecycle, actor, user.user_id, active, meta);
  await emitUserUpdated(trx, actor.tenant, user.user_id, ['is_inactive']);
  return true;
}
