import { delivered, type EventContribution } from '../../platform/events/vocabulary.ts';

/** The ticket events integrators can subscribe to; all are delivered to outbound webhooks. */
export const TICKET_EVENTS = {
  created: 'ticket.created',
  updated: 'ticket.updated',
  statusChanged: 'ticket.status_changed',
  assigned: 'ticket.assigned',
  closed: 'ticket.closed',
  commentAdded: 'ticket.comment.added',
} as const;

/** The `data` of every ticket event, in this order (the spec's curated list). */
export const TICKET_DATA_FIELDS = [
  'ticket_id',
  'ticket_number',
  'title',
  'status_id',
  'status_name',
  'previous_status_id',
  'previous_status_name',
  'priority_id',
  'priority_name',
  'client_id',
  'client_name',
  'contact_name_id',
  'contact_name',
  'contact_email',
  'assigned_to',
  'assigned_to_name',
  'assigned_team_id',
  'board_id',
  'board_name',
  'category_id',
  'subcategory_id',
  'is_closed',
  'entered_at',
  'updated_at',
  'closed_at',
  'due_date',
  'tags',
  'suppress_contact_notifications',
  'suppress_internal_notifications',
  'url',
] as const;

/**
 * ticket.comment.added adds `comment: { comment_id, text, author, author_id, author_type, is_internal, timestamp }`
 * (author_type `internal` for team members, `client` for portal contacts); attachments are never embedded.
 */
export const TICKET_COMMENT_FIELD = 'comment';

/**
 * The tickets area's part of the event vocabulary. Every delivery keeps the ticket id and the two
 * suppress flags, which the spec says are always present.
 */
export const TICKET_VOCABULARY: EventContribution = {
  types: delivered('ticket', TICKET_EVENTS, {
    created: 'A ticket was created',
    updated: 'Any field of a ticket changed; carries `changes`',
    statusChanged: 'A ticket moved to another status; data names the previous one',
    assigned: 'The assigned user or team of a ticket changed',
    closed: 'A ticket moved to a closed status',
    commentAdded: 'A comment was added to a ticket',
  }, { entity: 'ticket', always: ['ticket_id', 'suppress_contact_notifications', 'suppress_internal_notifications'] }),
  payloadEntities: { ticket: [...TICKET_DATA_FIELDS, TICKET_COMMENT_FIELD] },
};
