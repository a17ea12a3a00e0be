import type { Executor } from '../../platform/db/executor.ts';
import { prepareIf } from '../../platform/db/prepared.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchDocument, SearchIndexer } from '../../platform/search/types.ts';

/**
 * The client a ticket's search rows (its comments' too) are scoped to for portal keys. A ticket of a
 * billing profile (one a merge moved) is scoped to none: portal search scopes by one client, and the
 * portal rule for such tickets (the profile's contacts, tickets.rules.ts) is not one client, so portal
 * keys reach them through the ticket endpoints only.
 */
export const portalSearchClientOf = (t: { client_id: string; billing_profile_id: string | null }): string | null =>
  t.billing_profile_id === null ? t.client_id : null;

/** What a ticket's search document is built from: a row of `load` below, or a ticket view the writer just read. */
export interface TicketDocumentSource {
  ticket_id: string;
  ticket_number: string;
  title: string;
  description: string | null;
  client_id: string;
  billing_profile_id: string | null;
  updated_at: Date;
  client_name: string;
}

/**
 * Tickets: title; subtitle `client | T-number`; the description as body (so it is searchable and
 * snippets show it); the ticket number as identifier; the client for portal scoping (portalSearchClientOf).
 */
export function ticketSearchDocument(r: TicketDocumentSource): SearchDocument {
  return {
    type: 'ticket',
    id: r.ticket_id,
    title: r.title,
    subtitle: joined(r.client_name, r.ticket_number),
    body: r.description,
    url: `/tickets/${r.ticket_id}`,
    identifier: r.ticket_number,
    clientId: portalSearchClientOf(r),
    updatedAt: r.updated_at,
  };
}

export const ticketSearchIndexer: SearchIndexer = {
  type: 'ticket',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('tickets as t')
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 't.tenant').onRef('c.client_id', '=', 't.client_id'))
      .select(['t.ticket_id', 't.ticket_number', 't.title', 't.description', 't.client_id', 't.billing_profile_id', 't.updated_at', 'c.client_name'])
      .where('t.tenant', '=', tenant)
      .where('t.ticket_id', 'in', ids)
      .modifyEnd(prepareIf(ids.length === 1)) // a delete or a comment re-indexes its one ticket
      .execute();
    return rows.map(ticketSearchDocument);
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'tickets', 'ticket_id', tenant, afterId, limit),
};
