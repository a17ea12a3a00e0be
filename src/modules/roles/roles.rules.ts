import type { Actor } from '../../platform/auth/context.ts';
import { builtinRoles, isPermission } from '../../platform/auth/permissions.ts';
import { AppError, unprocessable, validation } from '../../platform/http/errors.ts';

/** The built-in role that holds every permission; a tenant always keeps an active user holding it (users' assertAdminRemains). */
export const ADMIN_ROLE_NAME = 'Admin';

/**
 * What a client-portal role may hold: the permissions of the built-in client-portal roles. Those are the
 * areas that confine a portal user to their own client; anything else (users, roles, settings, keys of
 * others, webhooks…) would let a client's user act on the whole tenant.
 */
export const clientPortalPermissions = (): ReadonlySet<string> => new Set(builtinRoles().filter((r) => r.is_client_portal).flatMap((r) => r.permissions));

/** 400 naming every string that is not in the permission catalogue. */
export function assertKnownPermissions(permissions: readonly string[], path: string): void {
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw validation(path, `unknown permission(s): ${unknown.join(', ')} (see GET /api/v1/permissions)`);
  }
}

/** 422 when a client-portal role would hold a permission outside what portal users may have. */
export function assertPortalSafe(permissions: readonly string[], isClientPortal: boolean): void {
  if (!isClientPortal) return;
  const allowed = clientPortalPermissions();
  const unsafe = permissions.filter((p) => !allowed.has(p));
  if (unsafe.length > 0) {
    throw unprocessable(`A client-portal role cannot hold ${unsafe.join(', ')}`, { permissions: unsafe, allowed: [...allowed].sort() });
  }
}

/** Nobody grants what they do not hold: a caller can only hand out permissions of their own key. */
export function assertCanGrant(actor: Actor, permissions: readonly string[]): void {
  const missing = [...new Set(permissions)].filter((p) => !actor.permissions.has(p)).sort();
  if (missing.length > 0) {
    throw new AppError('FORBIDDEN', `You cannot grant permissions you do not hold yourself: ${missing.join(', ')}`, { required: missing });
  }
}

/** A role fits a user when both are client-portal or both are internal. */
export function assertRolesFitUser(user: { user_id: string; user_type: string }, roles: readonly { role_name: string; is_client_portal: boolean }[]): void {
  const isClient = user.user_type === 'client';
  const misfits = roles.filter((r) => r.is_client_portal !== isClient).map((r) => r.role_name);
  if (misfits.length > 0) {
    throw unprocessable(
      isClient
        ? `Client users can only hold client-portal roles; not ${misfits.join(', ')}`
        : `Client-portal roles can only be given to client users; not ${misfits.join(', ')}`,
      { roles: misfits, user_type: user.user_type },
    );
  }
}
