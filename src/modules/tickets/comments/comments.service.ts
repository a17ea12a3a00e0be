import type { Kysely, Transaction } from 'kysely';
import { can, requirePermission, type Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { TICKET_EVENTS } from '../tickets.vocabulary.ts';
import { AppError, notFound } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { isPortalActor } from '../../clients/index.ts';
import { emitTicketEvents, suppressOf } from '../tickets.events.ts';
import { findTicketView, updateTicket } from '../tickets.repo.ts';
import { requireVisibleTicket } from '../tickets.rules.ts';
import { toComment, toCommentData } from './comments.mapper.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { commentList, findCommentView, insertComment } from './comments.repo.ts';
import type { Comment, CreateCommentBody, ListCommentsQuery } from './comments.schemas.ts';

/**
 * POST /api/v1/tickets/{ticketId}/comments inside the caller's transaction: checks who may comment,
 * adds the comment, touches the ticket's updated_at and emits ticket.comment.added.
 */
export async function addCommentInTrx(trx: Transaction<DB>, actor: Actor, ticketId: string, body: CreateCommentBody, ctx: { publicUrl: string }): Promise<Comment> {
  const portal = isPortalActor(actor);
  if (!(portal && can(actor, 'ticket:create'))) requirePermission(actor, 'ticket:update');
  if (portal && body.is_internal) throw new AppError('FORBIDDEN', 'Client-portal keys cannot add internal comments; send is_internal: false');
  const text = requiredText(body.comment_text, 'body.comment_text');
  const suppress = suppressOf(body);
  const { tenant } = actor;
  await requireVisibleTicket(trx, actor, ticketId, true);
  const now = new Date();
  const commentId = newId();
  await insertComment(trx, {
    tenant,
    comment_id: commentId,
    ticket_id: ticketId,
    comment_text: text,
    is_internal: body.is_internal ?? false,
    author_type: portal ? 'client' : 'internal',
    author_user_id: actor.userId,
    created_at: now,
    updated_at: now,
  });
  await updateTicket(trx, tenant, ticketId, { updated_at: now, updated_by: actor.userId });
  await syncSearch(trx, tenant, 'ticket_comment', [commentId]);
  await syncSearch(trx, tenant, 'ticket', [ticketId]);
  const comment = (await findCommentView(trx, tenant, ticketId, commentId))!;
  const ticket = (await findTicketView(trx, tenant, ticketId))!;
  await emitTicketEvents(trx, ticket, [TICKET_EVENTS.commentAdded], { previousStatus: null, suppress, publicUrl: ctx.publicUrl }, { comment: toCommentData(comment) });
  return toComment(comment);
}

/**
 * Comments on a ticket. Team members need ticket:update to comment; client-portal users may comment
 * on their own client's tickets with ticket:create too (raising a ticket and discussing it go
 * together), never internally, and never see internal notes.
 */
export function createCommentsService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  return {
    async list(actor: Actor, ticketId: string, query: ListCommentsQuery) {
      await requireVisibleTicket(db, actor, ticketId);
      const filter = { includeInternal: !isPortalActor(actor), isInternal: query.is_internal };
      return listPage(query, commentList(db, actor.tenant, ticketId, filter), (rows) => rows.map(toComment));
    },

    async get(actor: Actor, ticketId: string, commentId: string): Promise<Comment> {
      await requireVisibleTicket(db, actor, ticketId);
      const row = await findCommentView(db, actor.tenant, ticketId, commentId);
      if (!row || (row.is_internal && isPortalActor(actor))) throw notFound('Comment', commentId);
      return toComment(row);
    },

    /** Adds the comment (addCommentInTrx in its own transaction). */
    async add(actor: Actor, ticketId: string, body: CreateCommentBody): Promise<Comment> {
      return withTransaction(db, (trx) => addCommentInTrx(trx, actor, ticketId, body, { publicUrl }));
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
