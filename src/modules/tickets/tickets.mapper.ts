import type { TICKET_DATA_FIELDS } from './tickets.vocabulary.ts';
import type { TicketViewRow } from './tickets.repo.ts';
import type { Ticket } from './tickets.schemas.ts';
import { iso } from '../../platform/time.ts';

export function toTicket(row: TicketViewRow): Ticket {
  return {
    ticket_id: row.ticket_id,
    ticket_number: row.ticket_number,
    title: row.title,
    description: row.description,
    board_id: row.board_id,
    board_name: row.board_name,
    status_id: row.status_id,
    status_name: row.status_name,
    is_closed: row.is_closed,
    priority_id: row.priority_id,
    priority_name: row.priority_name,
    category_id: row.category_id,
    category_name: row.category_name,
    subcategory_id: row.subcategory_id,
    subcategory_name: row.subcategory_name,
    client_id: row.client_id,
    client_name: row.client_name,
    contact_name_id: row.contact_id,
    contact_name: row.contact_name,
    contact_email: row.contact_email,
    assigned_to: row.assigned_to,
    assigned_to_name: row.assigned_to_name,
    assigned_team_id: row.assigned_team_id,
    assigned_team_name: row.assigned_team_name,
    due_date: iso(row.due_date),
    tags: row.tags,
    entered_by: row.entered_by,
    entered_by_name: row.entered_by_name,
    entered_at: row.entered_at.toISOString(),
    updated_by: row.updated_by,
    updated_at: row.updated_at.toISOString(),
    closed_by: row.closed_by,
    closed_at: iso(row.closed_at),
  };
}

/** Per-request notification hints; not stored on the ticket. */
export interface Suppress {
  contact: boolean;
  internal: boolean;
}

export interface TicketDataContext {
  /** The status before this write, when the write changed it. */
  previousStatus: { status_id: string; status_name: string } | null;
  suppress: Suppress;
  publicUrl: string;
}

export type TicketData = Record<(typeof TICKET_DATA_FIELDS)[number], unknown>;

/** The curated `data` of every ticket event: exactly TICKET_DATA_FIELDS, in that order. */
export function toTicketData(row: TicketViewRow, ctx: TicketDataContext): TicketData {
  return {
    ticket_id: row.ticket_id,
    ticket_number: row.ticket_number,
    title: row.title,
    status_id: row.status_id,
    status_name: row.status_name,
    previous_status_id: ctx.previousStatus?.status_id ?? null,
    previous_status_name: ctx.previousStatus?.status_name ?? null,
    priority_id: row.priority_id,
    priority_name: row.priority_name,
    client_id: row.client_id,
    client_name: row.client_name,
    contact_name_id: row.contact_id,
    contact_name: row.contact_name,
    contact_email: row.contact_email,
    assigned_to: row.assigned_to,
    assigned_to_name: row.assigned_to_name,
    assigned_team_id: row.assigned_team_id,
    board_id: row.board_id,
    board_name: row.board_name,
    category_id: row.category_id,
    subcategory_id: row.subcategory_id,
    is_closed: row.is_closed,
    entered_at: row.entered_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    closed_at: iso(row.closed_at),
    due_date: iso(row.due_date),
    tags: row.tags,
    suppress_contact_notifications: ctx.suppress.contact,
    suppress_internal_notifications: ctx.suppress.internal,
    url: `${ctx.publicUrl}/api/v1/tickets/${row.ticket_id}`,
  };
}
