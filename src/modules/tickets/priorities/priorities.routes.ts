import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../tickets.schemas.ts';
import type { PrioritiesService } from './priorities.service.ts';
import {
  CreatePriorityBody,
  ListPrioritiesQuery,
  PriorityListResponse,
  PriorityParams,
  PriorityResponse,
  UpdatePriorityBody,
} from './priorities.schemas.ts';

const tags = ['Ticket settings'];

export const prioritiesRoutes = (service: PrioritiesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/priorities', {
    schema: { operationId: 'listPriorities', tags, summary: 'List ticket priorities (default order: order_number)', querystring: ListPrioritiesQuery, response: { 200: PriorityListResponse } },
    config: { permission: 'ticket:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/priorities', {
    schema: {
      operationId: 'createPriority',
      tags,
      summary: 'Create a ticket priority; is_default: true makes it the tenant\'s default',
      querystring: NoQuery,
      body: CreatePriorityBody,
      response: { 201: PriorityResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const priority = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/priorities/${priority.priority_id}`);
    return withEtag(req, reply, priority);
  });

  app.get('/priorities/:priorityId', {
    schema: { operationId: 'getPriority', tags, summary: 'Get a ticket priority', params: PriorityParams, querystring: NoQuery, response: { 200: PriorityResponse } },
    config: { permission: 'ticket:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.priorityId)));

  app.put('/priorities/:priorityId', {
    schema: {
      operationId: 'updatePriority',
      tags,
      summary: 'Update a ticket priority (partial); is_default: true moves the default here',
      params: PriorityParams,
      querystring: NoQuery,
      body: UpdatePriorityBody,
      response: { 200: PriorityResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.priorityId, req.body, ifMatchOf(req))));

  app.delete('/priorities/:priorityId', {
    schema: {
      operationId: 'deletePriority',
      tags,
      summary: 'Delete a ticket priority; refused (409) for the default and while tickets use it',
      params: PriorityParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.priorityId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
