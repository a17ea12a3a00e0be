import type { ActionContext, ActionInput, TargetField } from '../../../platform/actions/action.ts';
import { found, requireMapped } from '../../../platform/actions/support.ts';
import { validation } from '../../../platform/http/errors.ts';
import type { ClientsService } from '../../clients/index.ts';
import type { ContactsService } from '../../contacts/index.ts';

/** The ticket endpoints' own request contracts: mapped fields meet the same bounds and formats an API caller does. */
export { CreateTicketBody as TicketCreateInput, UpdateTicketBody as TicketUpdateInput, TicketStatusBody as TicketStatusInput } from '../tickets.schemas.ts';
export { CreateCommentBody as TicketCommentInput } from '../comments/comments.schemas.ts';

export const SUPPRESS_FIELDS: readonly TargetField[] = [
  { name: 'suppress_contact_notifications', type: 'boolean', required: false, description: 'Do not notify the ticket\'s contact about this change' },
  { name: 'suppress_internal_notifications', type: 'boolean', required: false, description: 'Suppress all notifications about this change' },
];

/** The target fields of a ticket's own fields (title is added by each action, required or not). */
export const TICKET_FIELDS: readonly TargetField[] = [
  { name: 'description', type: 'string', required: false, max_length: 100_000, nullable: true, description: 'Markdown' },
  { name: 'client_id', type: 'ref', ref_entity: 'client', required: false, description: 'The client (or client_external_id)' },
  { name: 'client_external_id', type: 'string', required: false, max_length: 255, description: 'The client by the external id an upsert recorded (instead of client_id)' },
  { name: 'board_id', type: 'ref', ref_entity: 'board', required: false, description: 'An active board (default: the tenant\'s default board)' },
  { name: 'status_id', type: 'ref', ref_entity: 'ticket_status', required: false, description: 'A status of the ticket\'s board (default: the board\'s default status)' },
  { name: 'priority_id', type: 'ref', ref_entity: 'ticket_priority', required: false, description: 'Default: the tenant\'s default priority' },
  { name: 'category_id', type: 'ref', ref_entity: 'ticket_category', required: false, nullable: true, description: 'A top-level category' },
  { name: 'subcategory_id', type: 'ref', ref_entity: 'ticket_category', required: false, nullable: true, description: 'A subcategory of category_id' },
  { name: 'contact_name_id', type: 'ref', ref_entity: 'contact', required: false, nullable: true, description: 'A contact of the ticket\'s client (or contact_external_id)' },
  { name: 'contact_external_id', type: 'string', required: false, max_length: 255, description: 'The contact by the external id an upsert recorded (instead of contact_name_id)' },
  { name: 'assigned_to', type: 'ref', ref_entity: 'user', required: false, nullable: true, description: 'An active internal user' },
  { name: 'assigned_team_id', type: 'ref', ref_entity: 'team', required: false, nullable: true, description: 'A team' },
  { name: 'due_date', type: 'string', required: false, max_length: 40, nullable: true, description: 'ISO 8601 timestamp with a time zone' },
  { name: 'tags', type: 'json', required: false, description: 'An array of tags (1–64 characters each, at most 50)' },
  ...SUPPRESS_FIELDS,
];

export const TICKET_BODY_KEYS = [
  'title', 'description', 'client_id', 'board_id', 'status_id', 'priority_id', 'category_id', 'subcategory_id', 'contact_name_id',
  'assigned_to', 'assigned_team_id', 'due_date', 'tags', 'suppress_contact_notifications', 'suppress_internal_notifications',
] as const;

/**
 * Resolves client_external_id / contact_external_id into client_id / contact_name_id (a miss fails
 * the delivery as unprocessable), refusing both forms of one reference.
 */
export function referenceResolver(clients: Pick<ClientsService, 'get'>, contacts: Pick<ContactsService, 'get'>) {
  return async (ctx: ActionContext, input: ActionInput, body: Record<string, unknown>): Promise<void> => {
    if (input.client_external_id !== undefined) {
      if (input.client_id !== undefined) throw validation('client_external_id', 'map either client_id or client_external_id, not both');
      body.client_id = await requireMapped(ctx, 'client', input.client_external_id as string, (id) => found(() => clients.get(ctx.actor, id)));
    }
    if (input.contact_external_id !== undefined) {
      if (input.contact_name_id !== undefined) throw validation('contact_external_id', 'map either contact_name_id or contact_external_id, not both');
      body.contact_name_id = await requireMapped(ctx, 'contact', input.contact_external_id as string, (id) => found(() => contacts.get(ctx.actor, id)));
    }
  };
}

export type ReferenceResolver = ReturnType<typeof referenceResolver>;
