import type { CommentsService } from '../comments/comments.service.ts';
import type { TicketsService } from '../tickets.service.ts';
import { defineAction, externalIdField, pick, type InboundAction } from '../../../platform/actions/action.ts';
import { bodyChecker, found, requireMapped } from '../../../platform/actions/support.ts';
import { SUPPRESS_FIELDS, TicketCommentInput } from './ticket-inputs.ts';

export function addTicketCommentByExternalId(tickets: TicketsService, comments: CommentsService): InboundAction {
  const check = bodyChecker(TicketCommentInput);
  return defineAction(
    {
      name: 'add_ticket_comment_by_external_id',
      entity_type: 'ticket',
      display_name: 'Comment on a ticket by external id',
      description: 'Adds a comment to the ticket recorded under external_id (like POST /api/v1/tickets/{ticketId}/comments): ticket.comment.added goes out.',
      permissions: ['ticket:update'],
      target_fields: [
        externalIdField(true, 'ticket'),
        { name: 'comment_text', type: 'string', required: true, max_length: 10_000, description: 'Markdown; not blank' },
        { name: 'is_internal', type: 'boolean', required: false, description: 'An internal note (default false)' },
        ...SUPPRESS_FIELDS,
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const body = check(pick(input, ['comment_text', 'is_internal', 'suppress_contact_notifications', 'suppress_internal_notifications'])) as Parameters<typeof comments.add>[2];
      const ticketId = await requireMapped(ctx, 'ticket', externalId, (id) => found(() => tickets.get(ctx.actor, id)));
      const comment = await comments.add(ctx.actor, ticketId, body);
      return { action: 'add_ticket_comment_by_external_id', entity_type: 'ticket', entity_id: ticketId, external_id: externalId, operation: 'comment_added', comment_id: comment.comment_id };
    },
  );
}
