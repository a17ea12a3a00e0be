import type { TicketsService } from '../tickets.service.ts';
import { defineAction, externalIdField, pick, type InboundAction } from '../../../platform/actions/action.ts';
import { bodyChecker, found, requireMapped } from '../../../platform/actions/support.ts';
import { SUPPRESS_FIELDS, TicketStatusInput } from './ticket-inputs.ts';

export function changeTicketStatusByExternalId(tickets: TicketsService): InboundAction {
  const check = bodyChecker(TicketStatusInput);
  return defineAction(
    {
      name: 'change_ticket_status_by_external_id',
      entity_type: 'ticket',
      display_name: 'Change a ticket\'s status by external id',
      description: 'Moves the ticket recorded under external_id to another status of its board (like PUT /api/v1/tickets/{ticketId}/status): ticket.status_changed, and ticket.closed when the status is closed. To map a sender\'s status names, use a JSONata lookup, e.g. {"open": "<status uuid>", "done": "<status uuid>"}[state].',
      permissions: ['ticket:update'],
      target_fields: [
        externalIdField(true, 'ticket'),
        { name: 'status_id', type: 'ref', ref_entity: 'ticket_status', required: true, description: 'A status of the ticket\'s board' },
        ...SUPPRESS_FIELDS,
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const body = check(pick(input, ['status_id', 'suppress_contact_notifications', 'suppress_internal_notifications'])) as Parameters<TicketsService['setStatus']>[2];
      const ticketId = await requireMapped(ctx, 'ticket', externalId, (id) => found(() => tickets.get(ctx.actor, id)));
      const ticket = await tickets.setStatus(ctx.actor, ticketId, body);
      return {
        action: 'change_ticket_status_by_external_id',
        entity_type: 'ticket',
        entity_id: ticketId,
        external_id: externalId,
        operation: 'status_changed',
        ticket_number: ticket.ticket_number,
        status_id: ticket.status_id,
        is_closed: ticket.is_closed,
      };
    },
  );
}
