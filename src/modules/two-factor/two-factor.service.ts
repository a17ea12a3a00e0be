import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import { AppError, conflict, notFound, unprocessable, validation } from '../../platform/http/errors.ts';
import type { BucketStore } from '../../platform/http/rate-limit/token-bucket.ts';
import { activateTwoFactorSecret, clearTwoFactorSecrets, recordActivity, setPendingTwoFactorSecret } from '../users/index.ts';
import { deleteRecoveryCodes, lockTwoFactorUser, replaceRecoveryCodes, type TwoFactorUser } from './two-factor.repo.ts';
import { recoveryCodeHash, verifySecondFactor } from './second-factor.ts';
import { matchTotp, newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, otpauthUrl } from './totp.ts';
import type { DisableTwoFactorBody, EnableTwoFactorBody, TwoFactorEnabled, TwoFactorEnrolment } from './two-factor.schemas.ts';

export const ENROLMENT_TTL_MS = 10 * 60 * 1000;
/** Code checks per user (confirming or disabling): a leaked API key must not become a TOTP oracle. */
const CODE_ATTEMPTS = { burst: 10, perMinute: 5 };

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export function createTwoFactorService(deps: { db: Kysely<DB>; secretBox: SecretBox; buckets: BucketStore }) {
  const { db, secretBox, buckets } = deps;

  /** The target user, visible to the caller; someone else's two-factor needs user:update. */
  async function target(trx: Transaction<DB>, actor: Actor, userId: string): Promise<TwoFactorUser> {
    const user = await lockTwoFactorUser(trx, actor.tenant, userId);
    // A client-portal caller sees only the users of its own client.
    if (!user || (actor.clientId !== null && user.client_id !== actor.clientId)) throw notFound('User', userId);
    if (user.user_id !== actor.userId) requirePermission(actor, 'user:update');
    return user;
  }

  async function spendAttempt(tenant: string, userId: string): Promise<void> {
    const r = await buckets.take(`2fa:${tenant}:${userId}`, CODE_ATTEMPTS);
    if (!r.allowed) {
      const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
      throw new AppError('RATE_LIMITED', `Too many two-factor codes tried; retry in ${seconds} s`, { retry_after_ms: r.retryAfterMs }, { 'Retry-After': String(seconds) });
    }
  }

  return {
    /** Starts an enrolment (no token) or confirms it (token). */
    async enable(actor: Actor, userId: string, body: EnableTwoFactorBody, meta: RequestMeta): Promise<TwoFactorEnrolment | TwoFactorEnabled> {
      if (body.token !== undefined) await spendAttempt(actor.tenant, userId);
      return withTransaction(db, async (trx) => {
        const user = await target(trx, actor, userId);
        if (user.two_factor_enabled) throw conflict('Two-factor authentication is already enabled for this user; disable it first to enrol again');

        if (body.token === undefined) {
          const secret = newTotpSecret();
          const at = new Date();
          await setPendingTwoFactorSecret(trx, actor.tenant, userId, secretBox.encrypt(secret), at);
          return { secret, otpauth_url: otpauthUrl(secret, user.email), expires_at: new Date(at.getTime() + ENROLMENT_TTL_MS).toISOString() };
        }

        if (!user.two_factor_pending_secret_enc || !user.two_factor_pending_at) {
          throw unprocessable('No two-factor enrolment is pending; POST without a token to start one');
        }
        if (user.two_factor_pending_at.getTime() + ENROLMENT_TTL_MS <= Date.now()) {
          throw unprocessable('The two-factor enrolment expired (10 minutes); POST without a token to start again');
        }
        const step = await matchTotp(secretBox.decrypt(user.two_factor_pending_secret_enc), body.token);
        if (step === null) throw validation('body.token', 'is not a current code for the pending secret');

        await activateTwoFactorSecret(trx, actor.tenant, userId, user.two_factor_pending_secret_enc, step);
        const codes = newRecoveryCodes();
        await replaceRecoveryCodes(trx, actor.tenant, userId, codes.map((c) => recoveryCodeHash(secretBox, actor.tenant, userId, normalizeRecoveryCode(c)!)));
        await recordActivity(trx, {
          tenant: actor.tenant, user_id: userId, actor_user_id: actor.userId, activity_type: '2fa_enabled',
          details: { recovery_codes: codes.length }, ip: meta.ip, user_agent: meta.userAgent,
        });
        return { two_factor_enabled: true as const, recovery_codes: codes };
      });
    },

    /** Yourself: with a current code or a recovery code. Someone else (user:update): no code needed. */
    async disable(actor: Actor, userId: string, body: DisableTwoFactorBody, meta: RequestMeta): Promise<void> {
      const self = userId === actor.userId;
      if (self && body.token !== undefined) await spendAttempt(actor.tenant, userId);
      await withTransaction(db, async (trx) => {
        const user = await target(trx, actor, userId);
        if (!user.two_factor_enabled && !user.two_factor_pending_secret_enc) throw conflict('Two-factor authentication is not enabled for this user');
        let method: string | null = null;
        // Proving the second factor is what stops a stolen API key or session from simply switching it off.
        if (self && user.two_factor_enabled) {
          if (body.token === undefined) throw validation('body.token', 'is required to disable your own two-factor authentication (a current code or a recovery code)');
          const check = await verifySecondFactor(trx, secretBox, user, body.token);
          if (!check.ok) {
            throw validation('body.token', check.reason === 'replayed_code' ? 'this code was already used; wait for the next one' : 'is not a current code or an unused recovery code');
          }
          method = check.method;
        }
        await clearTwoFactorSecrets(trx, actor.tenant, userId);
        await deleteRecoveryCodes(trx, actor.tenant, userId);
        await recordActivity(trx, {
          tenant: actor.tenant, user_id: userId, actor_user_id: actor.userId, activity_type: '2fa_disabled',
          details: { by: self ? 'self' : 'admin', ...(method ? { method } : {}), ...(user.two_factor_enabled ? {} : { pending_only: true }) },
          ip: meta.ip, user_agent: meta.userAgent,
        });
      });
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
