import type { Executor } from '../../../platform/db/executor.ts';
import { listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';
import { portalSearchClientOf } from '../tickets.search.ts';

/**
 * Ticket comments: titled after their ticket (`Comment on T-000012`), the ticket's title as subtitle,
 * the text as body. Internal comments are internal-only rows; the ticket's client scopes portal keys.
 * Deleting the ticket removes them with it (parent).
 */
export const ticketCommentSearchIndexer: SearchIndexer = {
  type: 'ticket_comment',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('ticket_comments as c')
      .innerJoin('tickets as t', (j) => j.onRef('t.tenant', '=', 'c.tenant').onRef('t.ticket_id', '=', 'c.ticket_id'))
      .select(['c.comment_id', 'c.ticket_id', 'c.comment_text', 'c.is_internal', 'c.updated_at', 't.ticket_number', 't.title', 't.client_id', 't.billing_profile_id'])
      .where('c.tenant', '=', tenant)
      .where('c.comment_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'ticket_comment' as const,
      id: r.comment_id,
      parentType: 'ticket' as const,
      parentId: r.ticket_id,
      title: `Comment on ${r.ticket_number}`,
      // The ticket's title, not the author's name: a user rename would otherwise have to re-index comments.
      subtitle: r.title,
      body: r.comment_text,
      url: `/tickets/${r.ticket_id}#comment-${r.comment_id}`,
      clientId: portalSearchClientOf(r),
      isInternal: r.is_internal,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'ticket_comments', 'comment_id', tenant, afterId, limit),
};

/** The comments of these tickets (their rows embed the ticket's number, title and client). */
export async function commentIdsOfTickets(db: Executor, tenant: string, ticketIds: readonly string[]): Promise<string[]> {
  if (ticketIds.length === 0) return [];
  const rows = await db.selectFrom('ticket_comments').select('comment_id').where('tenant', '=', tenant).where('ticket_id', 'in', ticketIds).execute();
  return rows.map((r) => r.comment_id);
}
