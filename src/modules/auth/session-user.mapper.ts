import { avatarUrl } from '../users/index.ts';
import type { LiveSessionRow } from './sessions.repo.ts';
import type { SessionUser } from './auth.schemas.ts';
import { iso } from '../../platform/time.ts';

/** Session users are `client` (portal) or `internal`; admin and contractor accounts are internal staff. */
export const sessionUserType = (userType: string): 'client' | 'internal' => (userType === 'client' ? 'client' : 'internal');

export function toSessionUser(row: LiveSessionRow): SessionUser {
  const name = [row.first_name, row.last_name].filter((p) => p && p.trim()).join(' ').trim();
  const userType = sessionUserType(row.user_type);
  return {
    session_id: row.session_id,
    login_method: row.login_method,
    user: {
      id: row.user_id,
      email: row.email,
      name: name || row.username,
      username: row.username,
      image: avatarUrl(row.user_id, row.avatar_etag ?? null),
      tenant: row.tenant,
      tenantSlug: row.tenant_slug,
      user_type: userType,
      ...(userType === 'client' && row.client_id ? { clientId: row.client_id } : {}),
      ...(userType === 'client' && row.contact_id ? { contactId: row.contact_id } : {}),
      plan: row.plan,
      addons: row.addons,
      trial_end: iso(row.trial_end),
      subscription_status: row.subscription_status,
      solo_pro_trial_end: iso(row.solo_pro_trial_end),
      premium_trial_end: iso(row.premium_trial_end),
      premium_trial_confirmed: row.premium_trial_confirmed,
      premium_trial_effective_date: iso(row.premium_trial_effective_date),
    },
  };
}
