import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery, ProjectParams } from '../projects.schemas.ts';
import type { LinksService } from './links.service.ts';
import { LinkListResponse, LinkResponse, LinkTicketBody, ListLinksQuery, ProjectTicketParams } from './links.schemas.ts';

const tags = ['Projects'];

export const linksRoutes = (service: LinksService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/:id/tickets', {
    schema: {
      operationId: 'listProjectTickets',
      tags,
      summary: 'Tickets linked to the project, its phases or its tasks, with ticket number, title, status, is_closed and the phase/task of the link',
      params: ProjectParams,
      querystring: ListLinksQuery,
      response: { 200: LinkListResponse },
    },
    config: { permission: ['project:read', 'ticket:read'] },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.post('/projects/:id/tickets', {
    schema: {
      operationId: 'linkProjectTicket',
      tags,
      summary: 'Link a ticket to the project, one of its phases (phase_id) or one of its tasks (task_id); the same ticket on the same target is a 409',
      params: ProjectParams,
      querystring: NoQuery,
      body: LinkTicketBody,
      response: { 201: LinkResponse },
    },
    config: { permission: ['project:read', 'project:update', 'ticket:read'] },
  }, async (req, reply) => {
    const link = await service.link(req.actor, req.params.id, req.body);
    // Links have no page of their own; the collection lists them.
    reply.code(201).header('Location', `/api/v1/projects/${req.params.id}/tickets`);
    return { data: link };
  });

  app.delete('/projects/:id/tickets/:ticketId', {
    schema: {
      operationId: 'unlinkProjectTicket',
      tags,
      summary: 'Remove every link of the ticket to the project, its phases and its tasks',
      params: ProjectTicketParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Unlinked' } },
    },
    config: { permission: ['project:read', 'project:update', 'ticket:read'] },
  }, async (req, reply) => {
    await service.unlink(req.actor, req.params.id, req.params.ticketId);
    return reply.code(204).send(null);
  });
};
