import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import { CreateTicketLinkBody, ListTicketLinksQuery, TicketLinkListResponse, TicketLinkParams, TicketLinkResponse } from './ticket-links.schemas.ts';
import type { TicketLinksService } from './ticket-links.service.ts';

const tags = ['Asset tickets'];

export const ticketLinksRoutes = (service: TicketLinksService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/:id/tickets', {
    schema: { operationId: 'listAssetTickets', tags, summary: 'Tickets linked to the asset, with status and relationship (needs asset:read and ticket:read)', params: IdParams, querystring: ListTicketLinksQuery, response: { 200: TicketLinkListResponse } },
    config: { permission: ['asset:read', 'ticket:read'] },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id, req.query) }));

  app.post('/assets/:id/tickets', {
    schema: { operationId: 'linkAssetTicket', tags, summary: 'Link a ticket to the asset (default relationship affected); 409 when already linked', params: IdParams, querystring: NoQuery, body: CreateTicketLinkBody, response: { 201: TicketLinkResponse } },
    config: { permission: ['asset:read', 'asset:update', 'ticket:read'] },
  }, async (req, reply) => {
    reply.code(201);
    return { data: await service.link(req.actor, req.params.id, req.body) };
  });

  app.delete('/assets/:id/tickets/:ticketId', {
    schema: { operationId: 'unlinkAssetTicket', tags, summary: 'Remove the link between the asset and a ticket (the ticket stays)', params: TicketLinkParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Unlinked' } } },
    config: { permission: ['asset:read', 'asset:update', 'ticket:read'] },
  }, async (req, reply) => {
    await service.unlink(req.actor, req.params.id, req.params.ticketId);
    return reply.code(204).send(null);
  });
};
