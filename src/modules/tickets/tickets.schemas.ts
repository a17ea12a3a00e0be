import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const NoQuery = Type.Object({}, { additionalProperties: false });

export const Ticket = Type.Object({
  ticket_id: Id,
  ticket_number: Type.String({ description: 'T-000001, T-000002, … per tenant (grows past six digits); allocated at creation' }),
  title: Type.String(),
  description: Nullable(Type.String({ description: 'Markdown' })),
  board_id: Id,
  board_name: Type.String(),
  status_id: Id,
  status_name: Type.String(),
  is_closed: Type.Boolean({ description: 'Whether the ticket sits in a closed status' }),
  priority_id: Id,
  priority_name: Type.String(),
  category_id: Nullable(Id),
  category_name: Nullable(Type.String()),
  subcategory_id: Nullable(Id),
  subcategory_name: Nullable(Type.String()),
  client_id: Id,
  client_name: Type.String(),
  contact_name_id: Nullable(Type.String({ format: 'uuid', description: 'The contact (at the ticket\'s client) the ticket is for' })),
  contact_name: Nullable(Type.String({ description: 'The contact\'s full name' })),
  contact_email: Nullable(Type.String()),
  assigned_to: Nullable(Type.String({ format: 'uuid', description: 'The internal user working the ticket' })),
  assigned_to_name: Nullable(Type.String({ description: 'First and last name (the username when both are empty)' })),
  assigned_team_id: Nullable(Id),
  assigned_team_name: Nullable(Type.String()),
  due_date: Nullable(Timestamp),
  tags: Type.Array(Type.String(), { description: 'Ordered alphabetically, case-insensitively' }),
  entered_by: Nullable(Type.String({ format: 'uuid', description: 'Who created the ticket (null once that user is deleted)' })),
  entered_by_name: Nullable(Type.String()),
  entered_at: Timestamp,
  updated_by: Nullable(Id),
  updated_at: Timestamp,
  closed_by: Nullable(Type.String({ format: 'uuid', description: 'Who moved it to a closed status; cleared on reopening' })),
  closed_at: Nullable(Type.String({ format: 'date-time', description: 'When it moved to a closed status; cleared on reopening' })),
});
export type Ticket = Static<typeof Ticket>;

const uuidOrNull = (description: string) => Nullable(Type.String({ format: 'uuid', description }));

export const Tag = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
  description: 'Trimmed, 1–64 characters, no control characters; unique per ticket regardless of case',
});
export const Tags = Type.Array(Tag, { maxItems: 50, description: 'Duplicates (regardless of case) collapse into the first spelling' });

export const suppressFields = {
  suppress_contact_notifications: Type.Optional(Type.Boolean({ description: 'Tell notification consumers not to notify the contact about this change (default false); carried by every event of this request, not stored' })),
  suppress_internal_notifications: Type.Optional(Type.Boolean({ description: 'Suppress all notifications about this change (default false); implies suppress_contact_notifications' })),
};

const title = Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; not blank' });
const description = Nullable(Type.String({ maxLength: 100_000, description: 'Markdown; blank means none' }));
const dueDate = Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 timestamp; null clears it' }));

const refFields = {
  board_id: Type.String({ format: 'uuid', description: 'An active board; default: the tenant\'s default board' }),
  status_id: Type.String({ format: 'uuid', description: 'A status of the ticket\'s board; default: that board\'s default status' }),
  priority_id: Type.String({ format: 'uuid', description: 'Default: the tenant\'s default priority' }),
  category_id: uuidOrNull('A top-level category, either unscoped or of the ticket\'s board'),
  subcategory_id: uuidOrNull('A subcategory of category_id'),
  contact_name_id: uuidOrNull('A contact of the ticket\'s client'),
  assigned_to: uuidOrNull('An active internal user'),
  assigned_team_id: uuidOrNull('A team'),
};

export const CreateTicketBody = Type.Object(
  {
    title,
    client_id: Type.Optional(Type.String({ format: 'uuid', description: 'Required for internal keys; client-portal keys default to (and may only use) their own client' })),
    description: Type.Optional(description),
    board_id: Type.Optional(refFields.board_id),
    status_id: Type.Optional(refFields.status_id),
    priority_id: Type.Optional(refFields.priority_id),
    category_id: Type.Optional(refFields.category_id),
    subcategory_id: Type.Optional(refFields.subcategory_id),
    contact_name_id: Type.Optional(refFields.contact_name_id),
    assigned_to: Type.Optional(refFields.assigned_to),
    assigned_team_id: Type.Optional(refFields.assigned_team_id),
    due_date: Type.Optional(dueDate),
    tags: Type.Optional(Tags),
    ...suppressFields,
  },
  { additionalProperties: false },
);
export type CreateTicketBody = Static<typeof CreateTicketBody>;

export const UpdateTicketBody = Type.Object(
  {
    title: Type.Optional(title),
    description: Type.Optional(description),
    client_id: Type.Optional(Type.String({ format: 'uuid', description: 'Moving a ticket to another client needs a contact of that client (or contact_name_id: null)' })),
    board_id: Type.Optional(Type.String({ format: 'uuid', description: 'An active board; unless the current status belongs to it, send status_id too' })),
    status_id: Type.Optional(refFields.status_id),
    priority_id: Type.Optional(refFields.priority_id),
    category_id: Type.Optional(refFields.category_id),
    subcategory_id: Type.Optional(refFields.subcategory_id),
    contact_name_id: Type.Optional(refFields.contact_name_id),
    assigned_to: Type.Optional(refFields.assigned_to),
    assigned_team_id: Type.Optional(refFields.assigned_team_id),
    due_date: Type.Optional(dueDate),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 50, description: 'Replaces the ticket\'s tags' })),
    ...suppressFields,
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; fields equal to the current values change nothing' },
);
export type UpdateTicketBody = Static<typeof UpdateTicketBody>;

export const TicketStatusBody = Type.Object(
  { status_id: Type.String({ format: 'uuid', description: 'A status of the ticket\'s board' }), ...suppressFields },
  { additionalProperties: false },
);
export type TicketStatusBody = Static<typeof TicketStatusBody>;

export const TicketAssignmentBody = Type.Object(
  {
    assigned_to: Type.Optional(uuidOrNull('An active internal user; null unassigns')),
    assigned_team_id: Type.Optional(uuidOrNull('A team; null removes the team')),
    ...suppressFields,
  },
  { additionalProperties: false, description: 'Send assigned_to, assigned_team_id or both' },
);
export type TicketAssignmentBody = Static<typeof TicketAssignmentBody>;

export const TICKET_SORT_FIELDS = ['ticket_number', 'entered_at', 'updated_at', 'due_date', 'priority'] as const;
export type TicketSortField = (typeof TICKET_SORT_FIELDS)[number];

const idFilter = (description?: string) => Type.Optional(Type.String({ format: 'uuid', ...(description ? { description } : {}) }));

export const ListTicketsQuery = listQuery(TICKET_SORT_FIELDS, {
  board_id: idFilter(),
  status_id: idFilter(),
  priority_id: idFilter(),
  category_id: idFilter(),
  subcategory_id: idFilter(),
  client_id: idFilter(),
  contact_name_id: idFilter('Tickets of this contact'),
  assigned_to: idFilter('Tickets assigned to this user'),
  assigned_team_id: idFilter(),
  is_closed: Type.Optional(Type.Boolean()),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Tickets carrying this tag (regardless of case)' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the title or the ticket number; blank means no search' })),
  due_before: Type.Optional(Type.String({ format: 'date-time', description: 'Tickets due before this time' })),
});
export type ListTicketsQuery = Static<typeof ListTicketsQuery>;

export const TicketParams = Type.Object({ ticketId: Id }, { additionalProperties: false });

export const TicketResponse = dataOf(Ticket);
export const TicketListResponse = listOf(Ticket);
