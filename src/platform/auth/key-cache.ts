import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
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
const TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;

/**
 * API key → actor cache. Any change to keys, users, roles or permissions of a tenant calls
 * `notifyAuthChange(trx, tenant)`; the NOTIFY reaches every process on commit and drops that
 * tenant's entries, so revocation is effective at once. The TTL bounds staleness if a notification
 * is ever missed (for example while a listener reconnects).
 */
export class KeyCache {
  private entries = new Map<string, { record: KeyRecord; loadedAt: number }>();

  constructor(private readonly db: Kysely<DB>) {}

  async resolve(keyHash: string): Promise<KeyRecord | undefined> {
    const hit = this.entries.get(keyHash);
    if (hit && Date.now() - hit.loadedAt < TTL_MS) return hit.record;
    const record = await this.load(keyHash);
    if (!record) {
      this.entries.delete(keyHash);
      return undefined;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, { record, loadedAt: Date.now() });
    return record;
  }

  invalidateTenant(tenant: string): void {
    for (const [hash, { record }] of this.entries) if (record.actor.tenant === tenant) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
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
