import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery, TicketParams } from '../tickets.schemas.ts';
import type { CommentsService } from './comments.service.ts';
import { CommentListResponse, CommentParams, CommentResponse, CreateCommentBody, ListCommentsQuery } from './comments.schemas.ts';

const tags = ['Tickets'];

export const commentsRoutes = (service: CommentsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/tickets/:ticketId/comments', {
    schema: {
      operationId: 'listTicketComments',
      tags,
      summary: 'List a ticket\'s comments, oldest first; client-portal keys never see internal notes',
      params: TicketParams,
      querystring: ListCommentsQuery,
      response: { 200: CommentListResponse },
    },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.params.ticketId, req.query));

  app.post('/tickets/:ticketId/comments', {
    schema: {
      operationId: 'addTicketComment',
      tags,
      summary: 'Comment on a ticket; emits ticket.comment.added',
      description: 'Needs ticket:update, or ticket:create for client-portal keys (whose comments are never internal).',
      params: TicketParams,
      querystring: NoQuery,
      body: CreateCommentBody,
      response: { 201: CommentResponse },
    },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => {
    const comment = await service.add(req.actor, req.params.ticketId, req.body);
    reply.code(201).header('Location', `/api/v1/tickets/${comment.ticket_id}/comments/${comment.comment_id}`);
    return { data: comment };
  });

  app.get('/tickets/:ticketId/comments/:commentId', {
    schema: {
      operationId: 'getTicketComment',
      tags,
      summary: 'Get one comment of a ticket (internal notes are hidden from client-portal keys)',
      params: CommentParams,
      querystring: NoQuery,
      response: { 200: CommentResponse },
    },
    config: { permission: 'ticket:read' },
  }, async (req) => ({ data: await service.get(req.actor, req.params.ticketId, req.params.commentId) }));
};
