import { hash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { withTransaction, type Executor } from '../../platform/db/executor.ts';
import { newId } from '../../platform/ids.ts';
import { recordActivity } from '../users/index.ts';
import { findLiveSession, insertSession, revokeSessionByHash, revokeUserSessions, touchSession, type LiveSessionRow } from './sessions.repo.ts';

/** 32 random bytes, base64url: what the cookie and a bearer header carry. Only its SHA-256 is stored. */
export const SESSION_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
export const hashSessionToken = (token: string): string => hash('sha256', token, 'hex');

const TOUCH_EVERY_MS = 60_000;

export interface IssuedSession {
  token: string;
  session_id: string;
  expires_at: Date;
}

export function createSessions(deps: { db: Kysely<DB>; ttlMs: number }) {
  const { db, ttlMs } = deps;

  return {
    /** Creates a session in the caller's transaction; the plaintext token exists only in the result. */
    async issue(trx: Executor, s: { tenant: string; userId: string; loginMethod: string; ip: string | null; userAgent: string | null }): Promise<IssuedSession> {
      const token = randomBytes(32).toString('base64url');
      const session = { token, session_id: newId(), expires_at: new Date(Date.now() + ttlMs) };
      await insertSession(trx, {
        tenant: s.tenant,
        session_id: session.session_id,
        user_id: s.userId,
        token_hash: hashSessionToken(token),
        login_method: s.loginMethod,
        ip: s.ip?.slice(0, 100) ?? null,
        user_agent: s.userAgent?.slice(0, 500) ?? null,
        expires_at: session.expires_at,
      });
      return session;
    },

    /** The live session behind a token (and a last_seen_at bump at most once a minute), or undefined. */
    async resolve(token: string | undefined): Promise<LiveSessionRow | undefined> {
      if (!token || !SESSION_TOKEN_RE.test(token)) return undefined;
      const row = await findLiveSession(db, hashSessionToken(token));
      if (row && Date.now() - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) await touchSession(db, row.tenant, row.session_id);
      return row;
    },

    /** Revokes the session behind a token, if it is live, and records the logout. */
    async signOut(token: string | undefined, meta: { ip: string | null; userAgent: string | null }): Promise<void> {
      if (!token || !SESSION_TOKEN_RE.test(token)) return;
      await withTransaction(db, async (trx) => {
        const revoked = await revokeSessionByHash(trx, hashSessionToken(token));
        if (!revoked) return;
        await recordActivity(trx, {
          tenant: revoked.tenant, user_id: revoked.user_id, activity_type: 'logout',
          details: { method: revoked.login_method, session_id: revoked.session_id }, ip: meta.ip, user_agent: meta.userAgent,
        });
      });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

/**
 * Ends every open sign-in session of a user (deactivated, or their password changed) in the caller's
 * transaction; returns how many.
 */
export function revokeSessionsOfUser(trx: Executor, tenant: string, userId: string): Promise<number> {
  return revokeUserSessions(trx, tenant, userId);
}
