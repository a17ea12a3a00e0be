import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import type { TicketsService } from './tickets.service.ts';
import {
  CreateTicketBody,
  ListTicketsQuery,
  NoQuery,
  TicketAssignmentBody,
  TicketListResponse,
  TicketParams,
  TicketResponse,
  TicketStatusBody,
  UpdateTicketBody,
} from './tickets.schemas.ts';

const tags = ['Tickets'];

export const ticketsRoutes = (service: TicketsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/tickets', {
    schema: {
      operationId: 'listTickets',
      tags,
      summary: 'List tickets (filter, search, sort — default ticket_number ascending — and paginate); client-portal keys see their own client\'s only',
      querystring: ListTicketsQuery,
      response: { 200: TicketListResponse },
    },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/tickets', {
    schema: {
      operationId: 'createTicket',
      tags,
      summary: 'Create a ticket (title and client_id required; board, status and priority default to the tenant\'s defaults); emits ticket.created',
      querystring: NoQuery,
      body: CreateTicketBody,
      response: { 201: TicketResponse },
    },
    config: { permission: 'ticket:create' },
  }, async (req, reply) => {
    const ticket = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/tickets/${ticket.ticket_id}`);
    return withEtag(req, reply, ticket);
  });

  app.get('/tickets/:ticketId', {
    schema: { operationId: 'getTicket', tags, summary: 'Get a ticket, including updated_at, the names it refers to and its tags', params: TicketParams, querystring: NoQuery, response: { 200: TicketResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.ticketId)));

  app.put('/tickets/:ticketId', {
    schema: {
      operationId: 'updateTicket',
      tags,
      summary: 'Update a ticket (partial); emits ticket.updated with changes, plus ticket.status_changed, ticket.closed and ticket.assigned as they apply',
      params: TicketParams,
      querystring: NoQuery,
      body: UpdateTicketBody,
      response: { 200: TicketResponse },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.ticketId, req.body, ifMatchOf(req))));

  app.put('/tickets/:ticketId/status', {
    schema: {
      operationId: 'updateTicketStatus',
      tags,
      summary: 'Move a ticket to another status of its board; closing sets closed_at and closed_by, reopening clears them',
      params: TicketParams,
      querystring: NoQuery,
      body: TicketStatusBody,
      response: { 200: TicketResponse },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => withEtag(req, reply, await service.setStatus(req.actor, req.params.ticketId, req.body, ifMatchOf(req))));

  app.put('/tickets/:ticketId/assignment', {
    schema: {
      operationId: 'updateTicketAssignment',
      tags,
      summary: 'Assign a ticket to a user and/or a team (null unassigns); emits ticket.updated and ticket.assigned',
      params: TicketParams,
      querystring: NoQuery,
      body: TicketAssignmentBody,
      response: { 200: TicketResponse },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => withEtag(req, reply, await service.assign(req.actor, req.params.ticketId, req.body, ifMatchOf(req))));

  app.delete('/tickets/:ticketId', {
    schema: {
      operationId: 'deleteTicket',
      tags,
      summary: 'Delete a ticket with its comments and tags',
      params: TicketParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'ticket:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.ticketId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
