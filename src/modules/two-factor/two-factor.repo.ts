import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { UsersTable } from '../../platform/db/schema.ts';

export type TwoFactorUser = Pick<
  Selectable<UsersTable>,
  | 'tenant' | 'user_id' | 'email' | 'client_id' | 'two_factor_enabled' | 'two_factor_secret_enc'
  | 'two_factor_pending_secret_enc' | 'two_factor_pending_at' | 'two_factor_last_step'
>;

/** The user's two-factor state, row-locked for the rest of the transaction. */
export async function lockTwoFactorUser(db: Executor, tenant: string, userId: string): Promise<TwoFactorUser | undefined> {
  return db
    .selectFrom('users')
    .select([
      'tenant', 'user_id', 'email', 'client_id', 'two_factor_enabled', 'two_factor_secret_enc',
      'two_factor_pending_secret_enc', 'two_factor_pending_at', 'two_factor_last_step',
    ])
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

export async function deleteRecoveryCodes(db: Executor, tenant: string, userId: string): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('tenant', '=', tenant).where('user_id', '=', userId).execute();
}

export async function replaceRecoveryCodes(db: Executor, tenant: string, userId: string, hashes: string[]): Promise<void> {
  await db.deleteFrom('user_recovery_codes').where('tenant', '=', tenant).where('user_id', '=', userId).execute();
  await db.insertInto('user_recovery_codes').values(hashes.map((code_hash) => ({ tenant, user_id: userId, code_hash }))).execute();
}

/** Marks an unused recovery code used; false when it does not exist or was used already. */
export async function consumeRecoveryCode(db: Executor, tenant: string, userId: string, codeHash: string): Promise<boolean> {
  const res = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: sql<Date>`now()` })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
