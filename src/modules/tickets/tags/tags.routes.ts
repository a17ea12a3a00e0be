import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery, TicketParams } from '../tickets.schemas.ts';
import type { TagsService } from './tags.service.ts';
import { AddTagBody, ReplaceTagsBody, TagListResponse, TagParams } from './tags.schemas.ts';

const tags = ['Tickets'];

export const tagsRoutes = (service: TagsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/tickets/:ticketId/tags', {
    schema: { operationId: 'listTicketTags', tags, summary: 'List a ticket\'s tags', params: TicketParams, querystring: NoQuery, response: { 200: TagListResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.list(req.actor, req.params.ticketId)));

  app.put('/tickets/:ticketId/tags', {
    schema: {
      operationId: 'replaceTicketTags',
      tags,
      summary: 'Replace a ticket\'s tags; emits ticket.updated with changes.tags when they differ',
      params: TicketParams,
      querystring: NoQuery,
      body: ReplaceTagsBody,
      response: { 200: TagListResponse },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => withEtag(req, reply, await service.replace(req.actor, req.params.ticketId, req.body, ifMatchOf(req))));

  app.post('/tickets/:ticketId/tags', {
    schema: {
      operationId: 'addTicketTag',
      tags,
      summary: 'Add a tag to a ticket (201; 200 when it already has it, regardless of case); emits ticket.updated',
      params: TicketParams,
      querystring: NoQuery,
      body: AddTagBody,
      response: { 200: TagListResponse, 201: TagListResponse },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => {
    const { tags: list, added } = await service.add(req.actor, req.params.ticketId, req.body);
    if (added) reply.code(201).header('Location', `/api/v1/tickets/${req.params.ticketId}/tags/${encodeURIComponent(req.body.tag.trim())}`);
    return withEtag(req, reply, list);
  });

  app.delete('/tickets/:ticketId/tags/:tag', {
    schema: {
      operationId: 'removeTicketTag',
      tags,
      summary: 'Remove a tag from a ticket (matched regardless of case); emits ticket.updated',
      params: TagParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Removed' } },
    },
    config: { permission: 'ticket:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.ticketId, req.params.tag, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
