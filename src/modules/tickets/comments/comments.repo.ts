import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { defineList } from '../../../platform/http/list.ts';
import type { TicketCommentsTable } from '../../../platform/db/schema.ts';

export interface CommentViewRow {
  comment_id: string;
  ticket_id: string;
  comment_text: string;
  is_internal: boolean;
  author_type: 'internal' | 'client';
  author_user_id: string | null;
  author_name: string | null;
  created_at: Date;
  updated_at: Date;
}

const commentsOf = (db: Executor, tenant: string, ticketId: string) =>
  db.selectFrom('ticket_comments as c').where('c.tenant', '=', tenant).where('c.ticket_id', '=', ticketId);

/** Adds the author's display name ("First Last", else the username). */
function withAuthor(q: ReturnType<typeof commentsOf>) {
  return q
    .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'c.tenant').onRef('u.user_id', '=', 'c.author_user_id'))
    .select([
      'c.comment_id', 'c.ticket_id', 'c.comment_text', 'c.is_internal', 'c.author_type', 'c.author_user_id', 'c.created_at', 'c.updated_at',
      sql<string | null>`coalesce(nullif(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.username)`.as('author_name'),
    ]);
}

export async function insertComment(db: Executor, row: Insertable<TicketCommentsTable>): Promise<void> {
  await db.insertInto('ticket_comments').values(row).execute();
}

export async function findCommentView(db: Executor, tenant: string, ticketId: string, commentId: string): Promise<CommentViewRow | undefined> {
  return withAuthor(commentsOf(db, tenant, ticketId).where('c.comment_id', '=', commentId)).executeTakeFirst();
}

export interface CommentListFilter {
  /** false for client-portal users: internal notes are left out (of the total too). */
  includeInternal: boolean;
  isInternal?: boolean;
}

function filtered(db: Executor, tenant: string, ticketId: string, f: CommentListFilter) {
  let q = commentsOf(db, tenant, ticketId);
  if (!f.includeInternal) q = q.where('c.is_internal', '=', false);
  if (f.isInternal !== undefined) q = q.where('c.is_internal', '=', f.isInternal);
  return q;
}

/** One page, oldest first by default (ties on comment_id), and the total. */
export function commentList(db: Executor, tenant: string, ticketId: string, f: CommentListFilter) {
  return defineList({
    from: filtered(db, tenant, ticketId, f),
    page: withAuthor(filtered(db, tenant, ticketId, f)),
    sorts: { created_at: ['c.created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'asc',
    tieBreaker: 'c.comment_id',
    updatedAt: 'c.updated_at',
  });
}
