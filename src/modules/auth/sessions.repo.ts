import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';

export interface NewSession {
  tenant: string;
  session_id: string;
  user_id: string;
  token_hash: string;
  login_method: string;
  ip: string | null;
  user_agent: string | null;
  expires_at: Date;
}

export async function insertSession(db: Executor, session: NewSession): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

/**
 * A live session with everything the session object shows: the session is neither revoked nor expired,
 * the user is active, and a client-portal user names their client (as for API keys).
 */
export async function findLiveSession(db: Executor, tokenHash: string) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (j) => j.onRef('u.tenant', '=', 's.tenant').onRef('u.user_id', '=', 's.user_id'))
    .innerJoin('tenants as t', 't.tenant_id', 's.tenant')
    .select([
      's.tenant', 's.session_id', 's.user_id', 's.login_method', 's.last_seen_at', 's.expires_at',
      'u.email', 'u.username', 'u.first_name', 'u.last_name', 'u.user_type', 'u.client_id', 'u.contact_id',
      't.slug as tenant_slug', 't.plan', 't.addons', 't.trial_end', 't.subscription_status', 't.solo_pro_trial_end',
      't.premium_trial_end', 't.premium_trial_confirmed', 't.premium_trial_effective_date',
      (eb) => eb.selectFrom('user_avatars as a').select('a.etag').whereRef('a.tenant', '=', 's.tenant').whereRef('a.user_id', '=', 's.user_id').as('avatar_etag'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.is_inactive', '=', false)
    .where((eb) => eb.or([eb('u.user_type', '<>', 'client'), eb('u.client_id', 'is not', null)]))
    .executeTakeFirst();
}

export type LiveSessionRow = NonNullable<Awaited<ReturnType<typeof findLiveSession>>>;

/** Bumps last_seen_at unless it moved within the last minute (the WHERE keeps that true across processes). */
export async function touchSession(db: Executor, tenant: string, sessionId: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: sql<Date>`now()` })
    .where('tenant', '=', tenant)
    .where('session_id', '=', sessionId)
    .where('last_seen_at', '<', sql<Date>`now() - interval '1 minute'`)
    .execute();
}

/** Revokes the session with this token; returns who it belonged to, if it was live. */
export async function revokeSessionByHash(db: Executor, tokenHash: string) {
  return db
    .updateTable('sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .returning(['tenant', 'session_id', 'user_id', 'login_method'])
    .executeTakeFirst();
}

/** Ends every open session of the user; returns how many. */
export async function revokeUserSessions(db: Executor, tenant: string, userId: string): Promise<number> {
  const res = await db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()` })
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Deletes sessions that expired or were revoked more than `graceMs` ago (kept that long for audit). */
export async function purgeEndedSessions(db: Executor, graceMs: number): Promise<void> {
  const before = new Date(Date.now() - graceMs);
  await db.deleteFrom('sessions').where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)])).execute();
}
