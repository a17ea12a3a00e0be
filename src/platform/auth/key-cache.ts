import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { TenantCache } from '../tenant-cache.ts';
import type { Actor } from './context.ts';

/** Every permission the user's roles grant (a correlated subquery over the given tenant and user columns). */
export const permissionsOfUser = (tenantColumn: string, userColumn: string) =>
  sql<string[]>`coalesce((select array_agg(distinct rp.permission) from user_roles ur
    join role_permissions rp on rp.tenant = ur.tenant and rp.role_id = ur.role_id
    where ur.tenant = ${sql.ref(tenantColumn)} and ur.user_id = ${sql.ref(userColumn)}), '{}')`;

/** What a key resolves to; cached so the hot path makes no database round trip for auth. */
export interface KeyRecord {
  actor: Actor;
  expiresAt: number | null;
  rateLimit: { burst: number; perMinute: number } | null;
  lastUsedAt: number | null;
}

export const AUTH_CHANNEL = 'psa_auth_invalidate';

/** A configuration's owner as an actor, without the configuration it acts for (loadOwnerActor adds it). */
export type OwnerRecord = Omit<Actor, 'apiKeyId'>;

/**
 * API key → actor cache, and owner → actor for the configurations that act for their owner (inbound
 * webhooks). Any change to keys, users, roles or permissions of a tenant calls
 * `notifyAuthChange(trx, tenant)`; the NOTIFY reaches every process on commit and drops that
 * tenant's entries, so revocation is effective at once (tenant-cache.ts).
 */
export class KeyCache {
  private keys = new TenantCache<KeyRecord>((r) => r.actor.tenant);
  private owners = new TenantCache<OwnerRecord>((o) => o.tenant);

  constructor(private readonly db: Kysely<DB>) {}

  resolve(keyHash: string): Promise<KeyRecord | undefined> {
    return this.keys.get(keyHash, () => this.load(keyHash));
  }

  /** The owner `userId` of `tenant` as `load` finds them, kept under the same invalidation as the keys. */
  resolveOwner(tenant: string, userId: string, load: () => Promise<OwnerRecord | undefined>): Promise<OwnerRecord | undefined> {
    return this.owners.get(`${tenant}/${userId}`, load);
  }

  invalidateTenant(tenant: string): void {
    this.keys.invalidateTenant(tenant);
    this.owners.invalidateTenant(tenant);
  }

  clear(): void {
    this.keys.clear();
    this.owners.clear();
  }

  private async load(keyHash: string): Promise<KeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', (j) => j.onRef('u.tenant', '=', 'k.tenant').onRef('u.user_id', '=', 'k.user_id'))
      .innerJoin('tenants as t', 't.tenant_id', 'k.tenant')
      .select([
        'k.tenant', 'k.api_key_id', 'k.user_id', 'k.scopes', 'k.expires_at', 'k.rate_limit_burst',
        'k.rate_limit_per_minute', 'k.last_used_at', 'u.user_type', 'u.client_id', 'u.contact_id', 't.slug',
        permissionsOfUser('k.tenant', 'k.user_id').as('permissions'),
      ])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null)
      .where('u.is_inactive', '=', false)
      // A client-portal account must name its client: without one it could not be confined to it.
      .where((eb) => eb.or([eb('u.user_type', '<>', 'client'), eb('u.client_id', 'is not', null)]))
      .executeTakeFirst();
    if (!row) return undefined;
    const scopes = row.scopes && row.scopes.length > 0 ? row.scopes : null;
    const granted = scopes ? row.permissions.filter((p) => scopes.includes(p)) : row.permissions;
    return {
      actor: {
        tenant: row.tenant,
        tenantSlug: row.slug,
        userId: row.user_id,
        apiKeyId: row.api_key_id,
        userType: row.user_type,
        clientId: row.user_type === 'client' ? row.client_id : null,
        contactId: row.user_type === 'client' ? row.contact_id : null,
        permissions: new Set(granted),
        scopes,
      },
      expiresAt: row.expires_at ? row.expires_at.getTime() : null,
      rateLimit:
        row.rate_limit_burst && row.rate_limit_per_minute
          ? { burst: row.rate_limit_burst, perMinute: row.rate_limit_per_minute }
          : null,
      lastUsedAt: row.last_used_at ? row.last_used_at.getTime() : null,
    };
  }
}

/** Call inside the transaction that changes keys, users, roles or permissions of a tenant. */
export async function notifyAuthChange(trx: Kysely<DB>, tenant: string): Promise<void> {
  await sql`select pg_notify(${AUTH_CHANNEL}, ${tenant})`.execute(trx);
}
