import type { Executor } from '../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../platform/search/types.ts';

/**
 * Tickets: title; subtitle `client | T-number`; the description as body (so it is searchable and
 * snippets show it); the ticket number as identifier; the client for portal scoping.
 */
export const ticketSearchIndexer: SearchIndexer = {
  type: 'ticket',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('tickets as t')
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 't.tenant').onRef('c.client_id', '=', 't.client_id'))
      .select(['t.ticket_id', 't.ticket_number', 't.title', 't.description', 't.client_id', 't.updated_at', 'c.client_name'])
      .where('t.tenant', '=', tenant)
      .where('t.ticket_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'ticket' as const,
      id: r.ticket_id,
      title: r.title,
      subtitle: joined(r.client_name, r.ticket_number),
      body: r.description,
      url: `/tickets/${r.ticket_id}`,
      identifier: r.ticket_number,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'tickets', 'ticket_id', tenant, afterId, limit),
};
