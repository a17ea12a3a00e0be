import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { TICKET_EVENTS } from './tickets.vocabulary.ts';
import { emit } from '../../platform/events/outbox.ts';
import { toTicketData, type Suppress, type TicketDataContext } from './tickets.mapper.ts';
import type { TicketViewRow } from './tickets.repo.ts';

/** Internal (not in the public vocabulary): a ticket was deleted. */
export const TICKET_DELETED = 'ticket.deleted';

export type TicketEventType = (typeof TICKET_EVENTS)[keyof typeof TICKET_EVENTS];

/** `changes` of ticket.updated: `{ field: { previous, new } }` with the ticket resource's field names and raw values. */
export type TicketChanges = Record<string, { previous: unknown; new: unknown }>;

/** `data.comment` of ticket.comment.added. */
export interface CommentData {
  comment_id: string;
  text: string;
  author: string | null;
  author_id: string | null;
  author_type: 'internal' | 'client';
  is_internal: boolean;
  timestamp: string;
}

export interface SuppressFlags {
  suppress_contact_notifications?: boolean;
  suppress_internal_notifications?: boolean;
}

/** Suppressing all notifications implies not notifying the contact either. */
export const suppressOf = (body: SuppressFlags): Suppress => {
  const internal = body.suppress_internal_notifications === true;
  return { internal, contact: internal || body.suppress_contact_notifications === true };
};

/**
 * The public events of one ticket write, in order, after the write: ticket.updated (with `changes`)
 * whenever a field changed, ticket.status_changed when the status did, ticket.closed when it moved
 * from an open to a closed status, ticket.assigned when the assignee or the team did.
 */
export function eventsOfChange(before: Pick<TicketViewRow, 'is_closed'>, after: Pick<TicketViewRow, 'is_closed'>, changes: TicketChanges): TicketEventType[] {
  if (Object.keys(changes).length === 0) return [];
  const types: TicketEventType[] = [TICKET_EVENTS.updated];
  if ('status_id' in changes) types.push(TICKET_EVENTS.statusChanged);
  if (!before.is_closed && after.is_closed) types.push(TICKET_EVENTS.closed);
  if ('assigned_to' in changes || 'assigned_team_id' in changes) types.push(TICKET_EVENTS.assigned);
  return types;
}

/**
 * Emits the events of one write through the outbox, in the write's transaction. Every event gets its
 * own event_id and the same `data`, built from `row` (the ticket as it is after the write).
 */
export async function emitTicketEvents(
  trx: Transaction<DB>,
  row: TicketViewRow,
  types: readonly TicketEventType[],
  ctx: TicketDataContext,
  extra: { changes?: TicketChanges; comment?: CommentData; merge?: boolean } = {},
): Promise<string[]> {
  const data: Record<string, unknown> = toTicketData(row, ctx);
  if (extra.comment) data.comment = extra.comment;
  const ids: string[] = [];
  for (const event_type of types) {
    const payload: Record<string, unknown> = event_type === TICKET_EVENTS.updated ? { data, changes: extra.changes ?? {} } : { data };
    // A client merge's re-attribution (webhooks receive data and changes only).
    if (extra.merge) payload.merge = true;
    ids.push(await emit(trx, { tenant: row.tenant, event_type, aggregate_type: 'ticket', aggregate_id: row.ticket_id, payload }));
  }
  return ids;
}

export function emitTicketDeleted(trx: Transaction<DB>, row: Pick<TicketViewRow, 'tenant' | 'ticket_id' | 'ticket_number'>): Promise<string> {
  return emit(trx, {
    tenant: row.tenant,
    event_type: TICKET_DELETED,
    aggregate_type: 'ticket',
    aggregate_id: row.ticket_id,
    payload: { ticket_id: row.ticket_id, ticket_number: row.ticket_number },
  });
}
