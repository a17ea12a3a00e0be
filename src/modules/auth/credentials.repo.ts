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
