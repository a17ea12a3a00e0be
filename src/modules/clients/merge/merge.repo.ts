import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';

/** The source's billing profiles, its default first: they move to the target with their ids. */
export async function profilesOf(db: Executor, tenant: string, clientId: string): Promise<{ billing_profile_id: string; name: string }[]> {
  return db
    .selectFrom('client_billing_profiles')
    .select(['billing_profile_id', 'name'])
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('billing_profile_id')
    .execute();
}

/** What of the clients area's own records names the source: profiles, locations, child clients, earlier tombstones. */
export async function ownCounts(db: Executor, tenant: string, sourceId: string): Promise<Record<string, number>> {
  const { rows } = await sql<Record<string, string | number>>`
    select
      (select count(*) from client_billing_profiles where tenant = ${tenant} and client_id = ${sourceId}) as billing_profiles,
      (select count(*) from client_locations where tenant = ${tenant} and client_id = ${sourceId}) as locations,
      (select count(*) from clients where tenant = ${tenant} and parent_client_id = ${sourceId}) as child_clients,
      (select count(*) from clients where tenant = ${tenant} and merged_into_client_id = ${sourceId}) as merged_clients
  `.execute(db);
  return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
}

/**
 * Moves the clients area's own records: billing profiles and locations join the target as non-default ones
 * (the target keeps its defaults), children of the source become the target's, and clients merged into the
 * source earlier now point at the target, so a tombstone never points at another tombstone.
 */
export async function moveOwn(db: Executor, tenant: string, sourceId: string, targetId: string): Promise<Record<string, number>> {
  const now = new Date();
  const n = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows);
  const profiles = await db.updateTable('client_billing_profiles').set({ client_id: targetId, is_default: false, updated_at: now })
    .where('tenant', '=', tenant).where('client_id', '=', sourceId).executeTakeFirst();
  const locations = await db.updateTable('client_locations').set({ client_id: targetId, is_default: false, updated_at: now })
    .where('tenant', '=', tenant).where('client_id', '=', sourceId).executeTakeFirst();
  const children = await db.updateTable('clients').set({ parent_client_id: targetId, updated_at: now })
    .where('tenant', '=', tenant).where('parent_client_id', '=', sourceId).executeTakeFirst();
  const tombstones = await db.updateTable('clients').set({ merged_into_client_id: targetId })
    .where('tenant', '=', tenant).where('merged_into_client_id', '=', sourceId).executeTakeFirst();
  return { billing_profiles: n(profiles), locations: n(locations), child_clients: n(children), merged_clients: n(tombstones) };
}
