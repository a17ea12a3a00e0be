import { AppError } from '../http/errors.ts';

/** Who is calling: resolved once per request from the API key, then read by every layer. */
export interface Actor {
  tenant: string;
  tenantSlug: string;
  userId: string;
  apiKeyId: string;
  userType: 'internal' | 'client' | 'admin' | 'contractor';
  /** Set for client-portal users (always, for them): they see only this client's records. */
  clientId: string | null;
  /** The portal user's own contact (`users.contact_id`), null for internal actors: the contact whose billing-profile rights it reads with. */
  contactId: string | null;
  /** Effective permissions: the user's role permissions, narrowed by the key's scopes. */
  permissions: ReadonlySet<string>;
  /** The key's own scopes (null = unrestricted); a scoped key cannot mint a broader one. */
  scopes: readonly string[] | null;
}

export const can = (actor: Actor, permission: string): boolean => actor.permissions.has(permission);

export function requirePermission(actor: Actor, ...permissions: string[]): void {
  const missing = permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length > 0) {
    throw new AppError('FORBIDDEN', `This API key lacks the permission ${missing.join(', ')}`, { required: missing });
  }
}
