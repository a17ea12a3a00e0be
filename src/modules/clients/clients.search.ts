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
 * After a client rename: the rows of other types that embed the client's name (contacts and tickets,
 * in their subtitle), as id lists per type. Loaded in chunks by the caller's syncSearch.
 */
export async function rowsNamingClient(db: Executor, tenant: string, clientId: string): Promise<{ contact: string[]; ticket: string[] }> {
  const contacts = await db.selectFrom('contacts').select('contact_id').where('tenant', '=', tenant).where('client_id', '=', clientId).execute();
  const tickets = await db.selectFrom('tickets').select('ticket_id').where('tenant', '=', tenant).where('client_id', '=', clientId).execute();
  return { contact: contacts.map((c) => c.contact_id), ticket: tickets.map((t) => t.ticket_id) };
}
