import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { ClientsService } from './clients.service.ts';
import {
  ClientListResponse,
  ClientResponse,
  ClientStatsResponse,
  CreateClientBody,
  ListClientsQuery,
  NoQuery,
  UpdateClientBody,
} from './clients.schemas.ts';

const tags = ['Clients'];

export const clientsRoutes = (service: ClientsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/clients', {
    schema: {
      operationId: 'listClients',
      tags,
      summary: 'List clients (filter, search, sort, paginate); client-portal keys see only their own client',
      querystring: ListClientsQuery,
      response: { 200: ClientListResponse },
    },
    config: { permission: 'client:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/clients', {
    schema: {
      operationId: 'createClient',
      tags,
      summary: 'Create a client with its default billing profile and, optionally, its default location',
      querystring: NoQuery,
      body: CreateClientBody,
      response: { 201: ClientResponse },
    },
    config: { permission: 'client:create' },
  }, async (req, reply) => {
    const client = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/clients/${client.client_id}`);
    return withEtag(req, reply, client);
  });

  // A static path: Fastify matches it before /clients/:id.
  app.get('/clients/stats', {
    schema: {
      operationId: 'getClientStats',
      tags,
      summary: 'Counts of clients: active, inactive, merged, by billing cycle and by type',
      querystring: NoQuery,
      response: { 200: ClientStatsResponse },
    },
    config: { permission: 'client:read' },
  }, async (req) => ({ data: await service.stats(req.actor) }));

  app.get('/clients/:id', {
    schema: {
      operationId: 'getClient',
      tags,
      summary: 'Get a client',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: ClientResponse },
    },
    config: { permission: 'client:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/clients/:id', {
    schema: {
      operationId: 'updateClient',
      tags,
      summary: 'Update a client (partial); merged clients are read-only',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateClientBody,
      response: { 200: ClientResponse },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/clients/:id', {
    schema: {
      operationId: 'deleteClient',
      tags,
      summary: 'Delete a client with its locations, billing profiles and notes; refused (409) while contacts or other records point at it',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'client:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
