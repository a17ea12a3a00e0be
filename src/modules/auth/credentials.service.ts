import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { hashPassword, recordActivity, recordLoginFailure, recordLoginSuccess, verifyPassword } from '../users/index.ts';
import { verifySecondFactor } from '../two-factor/index.ts';
import { findLoginCandidates, MAX_CANDIDATES, type LoginCandidate } from './credentials.repo.ts';
import type { IssuedSession, Sessions } from './sessions.service.ts';

/** Error codes a credentials sign-in answers with (also shown on the sign-in and error pages). */
export type CredentialsError = 'CredentialsSignin' | 'totp_required' | 'invalid_totp' | 'tenant_required';

export type CredentialsOutcome = { ok: true; session: IssuedSession; tenant: string; userId: string } | { ok: false; error: CredentialsError };

export interface CredentialsInput {
  login: string;
  /** `username` was sent (matches a username or an email); otherwise `email` (matches emails only). */
  byUsername: boolean;
  password: string;
  tenantSlug?: string;
  /** TOTP code or recovery code. */
  code?: string;
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

type FailureReason = 'invalid_password' | 'locked' | 'inactive' | 'portal_without_client' | 'invalid_totp' | 'replayed_totp';

class Rejected extends Error {
  constructor(readonly reason: FailureReason) {
    super(reason);
  }
}

/**
 * Password sign-in. The password is checked first, for every account the login could mean (so the
 * answer never tells whether an email exists, is locked or is inactive); only then is a second factor
 * asked for. Failed passwords and codes count toward the lockout; a locked account fails even with
 * the right password.
 */
export function createCredentialsSignIn(deps: {
  db: Kysely<DB>;
  secretBox: SecretBox;
  sessions: Sessions;
  lockout: { maxFailures: number; lockMs: number };
}) {
  const { db, secretBox, sessions, lockout } = deps;
  let dummyHash: Promise<string> | undefined;
  /** Spends the time of one password check, so unknown logins answer as slowly as known ones. */
  const burnTime = async (password: string) => {
    dummyHash ??= hashPassword('psa timing equaliser, never a real password');
    await verifyPassword(await dummyHash, password);
  };

  async function recordFailure(trx: Transaction<DB>, user: LoginCandidate, reason: FailureReason, meta: RequestMeta): Promise<void> {
    // Only wrong secrets count toward the lockout; attempts on a locked or inactive account do not extend it.
    const counts = reason === 'invalid_password' || reason === 'invalid_totp' || reason === 'replayed_totp';
    const lockedUntil = new Date(Date.now() + lockout.lockMs);
    const locked = counts && (await recordLoginFailure(trx, user.tenant, user.user_id, lockout.maxFailures, lockedUntil));
    await recordActivity(trx, {
      tenant: user.tenant, user_id: user.user_id, activity_type: 'login_failed',
      details: { method: 'credentials', reason, ...(locked ? { locked_until: lockedUntil.toISOString() } : {}) },
      ip: meta.ip, user_agent: meta.userAgent,
    });
  }

  return async function signIn(input: CredentialsInput, meta: RequestMeta): Promise<CredentialsOutcome> {
    const candidates = await findLoginCandidates(db, { value: input.login, byUsername: input.byUsername, tenantSlug: input.tenantSlug });
    if (candidates.length === 0) {
      await burnTime(input.password);
      return { ok: false, error: 'CredentialsSignin' };
    }
    if (candidates.length > MAX_CANDIDATES) return { ok: false, error: 'tenant_required' };

    const now = Date.now();
    const checked: { user: LoginCandidate; reason: FailureReason | null }[] = [];
    for (const user of candidates) {
      let passwordOk = false;
      if (user.password_hash) passwordOk = await verifyPassword(user.password_hash, input.password);
      else await burnTime(input.password);
      const reason: FailureReason | null =
        user.locked_until !== null && user.locked_until.getTime() > now ? 'locked'
          : !passwordOk ? 'invalid_password'
            : user.is_inactive ? 'inactive'
              : user.user_type === 'client' && !user.client_id ? 'portal_without_client'
                : null;
      checked.push({ user, reason });
    }

    const usable = checked.filter((c) => c.reason === null).map((c) => c.user);
    // The same login and password in several tenants: only someone who knows the password learns that.
    if (usable.length > 1) return { ok: false, error: 'tenant_required' };
    if (usable.length === 0) {
      await withTransaction(db, async (trx) => {
        for (const c of checked) await recordFailure(trx, c.user, c.reason!, meta);
      });
      return { ok: false, error: 'CredentialsSignin' };
    }

    const user = usable[0]!;
    const code = input.code?.trim();
    if (user.two_factor_enabled && !code) return { ok: false, error: 'totp_required' };

    try {
      return await withTransaction(db, async (trx) => {
        let secondFactor: string | null = null;
        if (user.two_factor_enabled) {
          const check = await verifySecondFactor(trx, secretBox, user, code!);
          if (!check.ok) throw new Rejected(check.reason === 'replayed_code' ? 'replayed_totp' : 'invalid_totp');
          secondFactor = check.method;
        }
        // Locked or deactivated since the password was checked: the rollback also un-spends a recovery code.
        if (!(await recordLoginSuccess(trx, user.tenant, user.user_id, true))) throw new Rejected('locked');
        const session = await sessions.issue(trx, { tenant: user.tenant, userId: user.user_id, loginMethod: 'credentials', ip: meta.ip, userAgent: meta.userAgent });
        await recordActivity(trx, {
          tenant: user.tenant, user_id: user.user_id, activity_type: 'login',
          details: { method: 'credentials', session_id: session.session_id, ...(secondFactor ? { second_factor: secondFactor } : {}) },
          ip: meta.ip, user_agent: meta.userAgent,
        });
        return { ok: true as const, session, tenant: user.tenant, userId: user.user_id };
      });
    } catch (err) {
      if (!(err instanceof Rejected)) throw err;
      await withTransaction(db, (trx) => recordFailure(trx, user, err.reason, meta));
      return { ok: false, error: err.reason === 'locked' ? 'CredentialsSignin' : 'invalid_totp' };
    }
  };
}

export type CredentialsSignIn = ReturnType<typeof createCredentialsSignIn>;
