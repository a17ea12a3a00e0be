import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';

/** At most this many accounts share one login across tenants before sign-in asks for the tenant outright. */
export const MAX_CANDIDATES = 10;

/**
 * The accounts a login could mean: by email (`email` given) or by username or email (`username`
 * given), in every tenant unless a tenant slug narrows it.
 */
export async function findLoginCandidates(db: Executor, login: { value: string; byUsername: boolean; tenantSlug?: string }) {
  const value = login.value.toLowerCase();
  let q = db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.tenant_id', 'u.tenant')
    .select([
      'u.tenant', 'u.user_id', 'u.email', 'u.password_hash', 'u.is_inactive', 'u.locked_until', 'u.user_type', 'u.client_id',
      'u.two_factor_enabled', 'u.two_factor_secret_enc', 't.slug as tenant_slug',
    ])
    .where((eb) =>
      login.byUsername
        ? eb.or([eb(eb.fn('lower', ['u.email']), '=', value), eb(eb.fn('lower', ['u.username']), '=', value)])
        : eb(eb.fn('lower', ['u.email']), '=', value),
    );
  if (login.tenantSlug !== undefined) q = q.where('t.slug', '=', login.tenantSlug.toLowerCase());
  return q.orderBy('u.tenant').orderBy('u.user_id').limit(MAX_CANDIDATES + 1).execute();
}

export type LoginCandidate = Awaited<ReturnType<typeof findLoginCandidates>>[number];

/**
 * Counts a failed password (or second-factor) attempt. The attempt that reaches `maxFailures` locks
 * the account until `lockedUntil` and starts the count again; one statement, so concurrent failures
 * cannot skip the lock.
 */
export async function recordLoginFailure(db: Executor, tenant: string, userId: string, maxFailures: number, lockedUntil: Date): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({
      failed_login_count: sql<number>`case when failed_login_count + 1 >= ${maxFailures} then 0 else failed_login_count + 1 end`,
      locked_until: sql<Date>`case when failed_login_count + 1 >= ${maxFailures} then ${lockedUntil} else locked_until end`,
    })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .returning('locked_until')
    .executeTakeFirst();
  return row?.locked_until?.getTime() === lockedUntil.getTime();
}

/** Records a completed sign-in, unless the account was locked or deactivated meanwhile. */
export async function recordLoginSuccess(db: Executor, tenant: string, userId: string, resetFailures: boolean): Promise<boolean> {
  let q = db
    .updateTable('users')
    .set(resetFailures ? { last_login_at: sql<Date>`now()`, failed_login_count: 0, locked_until: null } : { last_login_at: sql<Date>`now()` })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .where('is_inactive', '=', false);
  if (resetFailures) q = q.where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]));
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
