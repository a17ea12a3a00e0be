import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { ServiceTypesService } from './types.service.ts';
import { CreateServiceTypeBody, ListServiceTypesQuery, ServiceTypeListResponse, ServiceTypeResponse, UpdateServiceTypeBody } from './types.schemas.ts';

const tags = ['Service types'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const serviceTypesRoutes = (service: ServiceTypesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/service-types', {
    schema: { operationId: 'listServiceTypes', tags, summary: 'List service types (built-ins included) with how many catalogue items use each', querystring: ListServiceTypesQuery, response: { 200: ServiceTypeListResponse } },
    config: { permission: 'service:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/service-types', {
    schema: { operationId: 'createServiceType', tags, summary: 'Create a service type (names are unique per tenant, any case)', querystring: NoQuery, body: CreateServiceTypeBody, response: { 201: ServiceTypeResponse } },
    config: { permission: 'service:create' },
  }, async (req, reply) => {
    const type = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/service-types/${type.service_type_id}`);
    return withEtag(req, reply, type);
  });

  app.get('/service-types/:id', {
    schema: { operationId: 'getServiceType', tags, summary: 'Get a service type', params: IdParams, querystring: NoQuery, response: { 200: ServiceTypeResponse } },
    config: { permission: 'service:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/service-types/:id', {
    schema: { operationId: 'updateServiceType', tags, summary: 'Update a service type (partial)', params: IdParams, querystring: NoQuery, body: UpdateServiceTypeBody, response: { 200: ServiceTypeResponse } },
    config: { permission: 'service:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/service-types/:id', {
    schema: { operationId: 'deleteServiceType', tags, summary: 'Delete a service type; built-ins (422) and types catalogue items use (409) cannot be deleted', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'service:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
