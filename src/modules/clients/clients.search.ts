import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../platform/search/types.ts';

/** Clients: name as title, type (and tombstone marker) as subtitle, notes as body. */
export const clientSearchIndexer: SearchIndexer = {
  type: 'client',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('clients')
      .select(['client_id', 'client_name', 'client_type', 'notes', 'merged_into_client_id', 'updated_at'])
      .where('tenant', '=', tenant)
      .where('client_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'client' as const,
      id: r.client_id,
      title: r.client_name,
      subtitle: joined(r.client_type, r.merged_into_client_id ? 'merged' : null),
      body: r.notes,
      url: `/clients/${r.client_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'clients', 'client_id', tenant, afterId, limit),
};

/**
 * After a client rename: the rows of other types that embed the client's name in their subtitle, as id
 * lists per search type. Loaded in chunks by the caller's syncSearch.
 */
export async function rowsNamingClient(db: Executor, tenant: string, clientId: string): Promise<Record<'contact' | 'ticket' | 'opportunity' | 'interaction', string[]>> {
  const ids = async (table: 'contacts' | 'tickets' | 'opportunities' | 'interactions', column: string) =>
    (await sql<{ id: string }>`select ${sql.ref(column)} as id from ${sql.table(table)} where tenant = ${tenant} and client_id = ${clientId}`.execute(db)).rows.map((r) => r.id);
  return {
    contact: await ids('contacts', 'contact_id'),
    ticket: await ids('tickets', 'ticket_id'),
    opportunity: await ids('opportunities', 'opportunity_id'),
    interaction: await ids('interactions', 'interaction_id'),
  };
}
