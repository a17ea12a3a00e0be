import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { LocationsService } from './locations.service.ts';
import {
  LocationCreateBody,
  LocationListResponse,
  LocationParams,
  LocationResponse,
  LocationUpdateBody,
} from './locations.schemas.ts';

const tags = ['Clients'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const locationsRoutes = (service: LocationsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/clients/:id/locations', {
    schema: {
      operationId: 'listClientLocations',
      tags,
      summary: 'List a client\'s locations, the default first, then by name',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: LocationListResponse },
    },
    config: { permission: 'client:read' },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id) }));

  app.post('/clients/:id/locations', {
    schema: {
      operationId: 'createClientLocation',
      tags,
      summary: 'Add a location; the first active one becomes the default',
      params: IdParams,
      querystring: NoQuery,
      body: LocationCreateBody,
      response: { 201: LocationResponse },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) => {
    const location = await service.create(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/clients/${req.params.id}/locations/${location.location_id}`);
    return withEtag(req, reply, location);
  });

  app.get('/clients/:id/locations/:locationId', {
    schema: {
      operationId: 'getClientLocation',
      tags,
      summary: 'Get one location (with its ETag, for If-Match on PUT and DELETE)',
      params: LocationParams,
      querystring: NoQuery,
      response: { 200: LocationResponse },
    },
    config: { permission: 'client:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id, req.params.locationId)));

  app.put('/clients/:id/locations/:locationId', {
    schema: {
      operationId: 'updateClientLocation',
      tags,
      summary: 'Update a location (partial); is_default and is_active move the client\'s default',
      params: LocationParams,
      querystring: NoQuery,
      body: LocationUpdateBody,
      response: { 200: LocationResponse },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) =>
    withEtag(req, reply, await service.update(req.actor, req.params.id, req.params.locationId, req.body, ifMatchOf(req))));

  app.delete('/clients/:id/locations/:locationId', {
    schema: {
      operationId: 'deleteClientLocation',
      tags,
      summary: 'Delete a location; a deleted default is replaced by the oldest other active location',
      params: LocationParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'client:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, req.params.locationId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
