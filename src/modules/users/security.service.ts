import type { Executor } from '../../platform/db/executor.ts';
import * as repo from './security.repo.ts';

/**
 * The sign-in and two-factor state kept on the user record, for the areas that run sign-in (auth)
 * and TOTP (two-factor). Each takes the caller's executor so the change joins its transaction.
 */

/** Counts a failed attempt; true when this attempt locked the account until `lockedUntil`. */
export function recordLoginFailure(db: Executor, tenant: string, userId: string, maxFailures: number, lockedUntil: Date): Promise<boolean> {
  return repo.recordLoginFailure(db, tenant, userId, maxFailures, lockedUntil);
}

/** Records a completed sign-in; false when the account was locked or deactivated meanwhile. */
export function recordLoginSuccess(db: Executor, tenant: string, userId: string, resetFailures: boolean): Promise<boolean> {
  return repo.recordLoginSuccess(db, tenant, userId, resetFailures);
}

/** Stores an enrolment's secret until a code confirms it. */
export function setPendingTwoFactorSecret(db: Executor, tenant: string, userId: string, secretEnc: string, at: Date): Promise<void> {
  return repo.setPendingTwoFactorSecret(db, tenant, userId, secretEnc, at);
}

/** Switches two-factor on with the confirmed secret; `step` (the confirming code's) counts as used. */
export function activateTwoFactorSecret(db: Executor, tenant: string, userId: string, secretEnc: string, step: number): Promise<void> {
  return repo.activateTwoFactorSecret(db, tenant, userId, secretEnc, step);
}

/** Switches two-factor off and forgets every secret. */
export function clearTwoFactorSecrets(db: Executor, tenant: string, userId: string): Promise<void> {
  return repo.clearTwoFactorSecrets(db, tenant, userId);
}

/** Uses a TOTP step once; false when it (or a later one) was used already. */
export function claimTotpStep(db: Executor, tenant: string, userId: string, step: number): Promise<boolean> {
  return repo.claimTotpStep(db, tenant, userId, step);
}
