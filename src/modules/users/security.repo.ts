import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';

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

export async function setPendingTwoFactorSecret(db: Executor, tenant: string, userId: string, secretEnc: string, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ two_factor_pending_secret_enc: secretEnc, two_factor_pending_at: at, updated_at: new Date() })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .execute();
}

/** Turns the pending secret into the active one; the confirming code's step counts as used. */
export async function activateTwoFactorSecret(db: Executor, tenant: string, userId: string, secretEnc: string, step: number): Promise<void> {
  await db
    .updateTable('users')
    .set({
      two_factor_enabled: true,
      two_factor_secret_enc: secretEnc,
      two_factor_pending_secret_enc: null,
      two_factor_pending_at: null,
      two_factor_last_step: step,
      updated_at: new Date(),
    })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .execute();
}

export async function clearTwoFactorSecrets(db: Executor, tenant: string, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({
      two_factor_enabled: false,
      two_factor_secret_enc: null,
      two_factor_pending_secret_enc: null,
      two_factor_pending_at: null,
      two_factor_last_step: null,
      updated_at: new Date(),
    })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .execute();
}

/**
 * Records `step` as the last accepted TOTP step unless that step (or a later one) was already used.
 * One conditional UPDATE, so two concurrent uses of the same code cannot both succeed.
 */
export async function claimTotpStep(db: Executor, tenant: string, userId: string, step: number): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({ two_factor_last_step: step })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('two_factor_last_step', 'is', null), eb('two_factor_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
