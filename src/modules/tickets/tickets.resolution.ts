import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { requireVisibleTicket } from './tickets.rules.ts';

export interface TicketResolution {
  ticket_id: string;
  ticket_number: string;
  title: string;
  description: string | null;
  /** The comment that closed the ticket (the last one up to closed_at), else the last internal comment. */
  resolution: string | null;
}

/**
 * A ticket's problem and resolution, for areas that write them up (a knowledge-base article). 404 when the
 * actor cannot see the ticket.
 */
export async function ticketResolution(db: Executor, actor: Actor, ticketId: string): Promise<TicketResolution> {
  const ticket = await requireVisibleTicket(db, actor, ticketId);
  const last = (q: ReturnType<typeof comments>) => q.orderBy('created_at', 'desc').orderBy('comment_id', 'desc').limit(1).executeTakeFirst();
  const comments = () => db.selectFrom('ticket_comments').select('comment_text').where('tenant', '=', actor.tenant).where('ticket_id', '=', ticketId);
  const closing = ticket.closed_at ? await last(comments().where('created_at', '<=', ticket.closed_at)) : undefined;
  const internal = closing ?? (await last(comments().where('is_internal', '=', true)));
  return { ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number, title: ticket.title, description: ticket.description, resolution: internal?.comment_text ?? null };
}
