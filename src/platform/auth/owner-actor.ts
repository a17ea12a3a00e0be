import type { Executor } from '../db/executor.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Actor } from './context.ts';
import { permissionsOfUser, type KeyCache, type OwnerRecord } from './key-cache.ts';

// Prepared: every inbound delivery with a direct action and every automation execution loads its owner.
const ownerById = preparedQuery(['tenant', 'userId'], (db, v) =>
  db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.tenant_id', 'u.tenant')
    .select([
      'u.user_id', 'u.user_type', 'u.client_id', 'u.contact_id', 't.slug',
      permissionsOfUser('u.tenant', 'u.user_id').as('permissions'),
    ])
    .where('u.tenant', '=', v.tenant)
    .where('u.user_id', '=', v.userId)
    .where('u.is_inactive', '=', false)
    .where((eb) => eb.or([eb('u.user_type', '<>', 'client'), eb('u.client_id', 'is not', null)])),
);

/**
 * The actor a configuration that acts for its owner runs as (an inbound webhook's direct actions, an
 * automation rule's actions): the owner, with the permissions of their current roles (as an API key of
 * theirs without scopes would have). Undefined when the owner is gone, deactivated, or a client-portal
 * account without a client (the API-key rules). `actingAs` names the configuration where services note
 * the API key. With `cache` (the API process's key cache), the owner is read once and then kept until any
 * change to the tenant's users, roles or keys invalidates it, as API keys are.
 */
export async function loadOwnerActor(db: Executor, tenant: string, userId: string | null, actingAs: string, cache?: KeyCache): Promise<Actor | undefined> {
  if (userId === null) return undefined;
  const owner = cache ? await cache.resolveOwner(tenant, userId, () => readOwner(db, tenant, userId)) : await readOwner(db, tenant, userId);
  // Not an API key: the configuration acts for its owner. Recorded where services note the key.
  return owner && { ...owner, apiKeyId: actingAs };
}

async function readOwner(db: Executor, tenant: string, userId: string): Promise<OwnerRecord | undefined> {
  const [row] = await ownerById(db, { tenant, userId });
  if (!row) return undefined;
  return {
    tenant,
    tenantSlug: row.slug,
    userId: row.user_id,
    userType: row.user_type,
    clientId: row.user_type === 'client' ? row.client_id : null,
    contactId: row.user_type === 'client' ? row.contact_id : null,
    permissions: new Set(row.permissions),
    scopes: null,
  };
}
