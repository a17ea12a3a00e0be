import type { TicketsService } from '../tickets.service.ts';
import { AppError, validation } from '../../../platform/http/errors.ts';
import { defineAction, externalIdField, pick, type InboundAction } from '../../../platform/actions/action.ts';
import { bodyChecker } from '../../../platform/actions/support.ts';
import { TICKET_BODY_KEYS, TICKET_FIELDS, TicketCreateInput, type ReferenceResolver } from './ticket-inputs.ts';

export function createTicket(deps: { tickets: TicketsService; resolve: ReferenceResolver }): InboundAction {
  const { tickets, resolve } = deps;
  const check = bodyChecker(TicketCreateInput);
  return defineAction(
    {
      name: 'create_ticket',
      entity_type: 'ticket',
      display_name: 'Create a ticket',
      description: 'Creates a ticket through the tickets service (ticket.created goes out like for any other ticket). With external_id, the ticket is recorded under it for the *_by_external_id actions, and a second delivery with the same external_id is refused instead of creating a duplicate.',
      permissions: ['ticket:create'],
      target_fields: [
        { name: 'title', type: 'string', required: true, max_length: 255, description: 'Not blank' },
        ...TICKET_FIELDS,
        externalIdField(false, 'ticket'),
      ],
    },
    async (ctx, input) => {
      const body = pick(input, TICKET_BODY_KEYS);
      await resolve(ctx, input, body);
      if (body.client_id === undefined) throw validation('client_id', 'map client_id or client_external_id: a ticket needs a client');
      const checked = check(body) as Parameters<TicketsService['create']>[1];
      const externalId = (input.external_id as string | undefined) ?? null;
      if (externalId === null) {
        const ticket = await tickets.create(ctx.actor, checked);
        return { action: 'create_ticket', entity_type: 'ticket', entity_id: ticket.ticket_id, external_id: null, operation: 'created', ticket_number: ticket.ticket_number };
      }
      const outcome = await ctx.externalIds.createOnce('ticket', externalId, async () => {
        const ticket = await tickets.create(ctx.actor, checked);
        return { entityId: ticket.ticket_id, value: ticket.ticket_number };
      });
      if (!outcome.created) {
        throw new AppError('UNPROCESSABLE', `A ticket already exists for external id '${externalId}'`, {
          reason: 'already_exists',
          entity_type: 'ticket',
          entity_id: outcome.entityId,
          external_id: externalId,
        });
      }
      return { action: 'create_ticket', entity_type: 'ticket', entity_id: outcome.entityId, external_id: externalId, operation: 'created', ticket_number: outcome.value };
    },
  );
}
