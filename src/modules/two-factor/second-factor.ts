import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { claimTotpStep } from '../users/index.ts';
import { consumeRecoveryCode } from './two-factor.repo.ts';
import { looksLikeTotp, matchTotp, normalizeRecoveryCode } from './totp.ts';

export type SecondFactorResult =
  | { ok: true; method: 'totp' | 'recovery_code' }
  | { ok: false; reason: 'invalid_code' | 'replayed_code' };

/** Recovery codes are stored as keyed MACs: a copy of the database alone cannot test guesses. */
export const recoveryCodeHash = (box: SecretBox, tenant: string, userId: string, canonical: string): string =>
  box.mac(`recovery-code:${tenant}:${userId}:${canonical}`);

/**
 * Checks a second-factor code for a user with two-factor enabled: a current TOTP code (its time step
 * is claimed, so the same code cannot be used twice) or an unused recovery code (consumed). Run it in
 * the transaction of the action it authorises, so a rollback also un-spends the code.
 */
export async function verifySecondFactor(
  trx: Executor,
  box: SecretBox,
  user: { tenant: string; user_id: string; two_factor_secret_enc: string | null },
  code: string,
): Promise<SecondFactorResult> {
  const given = code.trim();
  if (looksLikeTotp(given)) {
    if (!user.two_factor_secret_enc) return { ok: false, reason: 'invalid_code' };
    const step = await matchTotp(box.decrypt(user.two_factor_secret_enc), given);
    if (step === null) return { ok: false, reason: 'invalid_code' };
    return (await claimTotpStep(trx, user.tenant, user.user_id, step))
      ? { ok: true, method: 'totp' }
      : { ok: false, reason: 'replayed_code' };
  }
  const canonical = normalizeRecoveryCode(given);
  if (!canonical) return { ok: false, reason: 'invalid_code' };
  return (await consumeRecoveryCode(trx, user.tenant, user.user_id, recoveryCodeHash(box, user.tenant, user.user_id, canonical)))
    ? { ok: true, method: 'recovery_code' }
    : { ok: false, reason: 'invalid_code' };
}
