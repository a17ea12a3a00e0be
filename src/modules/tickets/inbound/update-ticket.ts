import type { TicketsService } from '../tickets.service.ts';
import { defineAction, externalIdField, pick, type InboundAction } from '../../../platform/actions/action.ts';
import { bodyChecker, found, requireMapped } from '../../../platform/actions/support.ts';
import { TICKET_BODY_KEYS, TICKET_FIELDS, TicketUpdateInput, type ReferenceResolver } from './ticket-inputs.ts';

export function updateTicketByExternalId(deps: { tickets: TicketsService; resolve: ReferenceResolver }): InboundAction {
  const { tickets, resolve } = deps;
  const check = bodyChecker(TicketUpdateInput);
  return defineAction(
    {
      name: 'update_ticket_by_external_id',
      entity_type: 'ticket',
      display_name: 'Update a ticket by external id',
      description: 'Updates the ticket recorded under external_id (by create_ticket) through the tickets service: ticket.updated and, as they apply, ticket.status_changed, ticket.closed and ticket.assigned go out. An unknown external id fails the delivery (422).',
      permissions: ['ticket:update'],
      target_fields: [
        externalIdField(true, 'ticket'),
        { name: 'title', type: 'string', required: false, max_length: 255, description: 'Not blank' },
        ...TICKET_FIELDS,
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const body = pick(input, TICKET_BODY_KEYS);
      await resolve(ctx, input, body);
      const checked = check(body) as Parameters<TicketsService['update']>[2];
      const ticketId = await requireMapped(ctx, 'ticket', externalId, (id) => found(() => tickets.get(ctx.actor, id)));
      const ticket = await tickets.update(ctx.actor, ticketId, checked);
      return { action: 'update_ticket_by_external_id', entity_type: 'ticket', entity_id: ticketId, external_id: externalId, operation: 'updated', ticket_number: ticket.ticket_number };
    },
  );
}
