import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { UPSTREAM_502 } from '../rmm.openapi.ts';
import type { IntegrationsService } from './integrations.service.ts';
import {
  CreateIntegrationBody,
  DeviceListResponse,
  IntegrationListResponse,
  IntegrationParams,
  IntegrationResponse,
  ListDevicesQuery,
  ListIntegrationsQuery,
  NoQuery,
  TestOutcomeResponse,
  UpdateIntegrationBody,
} from './integrations.schemas.ts';

const tags = ['RMM'];

export const integrationsRoutes = (service: IntegrationsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/rmm/integrations', {
    schema: { operationId: 'listRmmIntegrations', tags, summary: 'List RMM integrations (filter by provider or is_active, sort, paginate)', querystring: ListIntegrationsQuery, response: { 200: IntegrationListResponse } },
    config: { permission: 'settings:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/rmm/integrations', {
    schema: {
      operationId: 'createRmmIntegration',
      tags,
      summary: 'Connect an RMM (provider, name, base_url, api_key); the key is stored encrypted and never returned',
      querystring: NoQuery,
      body: CreateIntegrationBody,
      response: { 201: IntegrationResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const integration = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/rmm/integrations/${integration.integration_id}`);
    return withEtag(req, reply, integration);
  });

  app.get('/rmm/integrations/:integrationId', {
    schema: { operationId: 'getRmmIntegration', tags, summary: 'Get an RMM integration (api_key shown only as api_key_last4)', params: IntegrationParams, querystring: NoQuery, response: { 200: IntegrationResponse } },
    config: { permission: 'settings:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.integrationId)));

  app.put('/rmm/integrations/:integrationId', {
    schema: {
      operationId: 'updateRmmIntegration',
      tags,
      summary: 'Update an RMM integration (partial; a new api_key replaces the stored one; honours If-Match)',
      params: IntegrationParams,
      querystring: NoQuery,
      body: UpdateIntegrationBody,
      response: { 200: IntegrationResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.integrationId, req.body, ifMatchOf(req))));

  app.delete('/rmm/integrations/:integrationId', {
    schema: {
      operationId: 'deleteRmmIntegration',
      tags,
      summary: 'Delete an RMM integration; refused (409) while assets are linked through it',
      params: IntegrationParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.integrationId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/rmm/integrations/:integrationId/test', {
    schema: {
      operationId: 'testRmmIntegration',
      tags,
      summary: 'Call the RMM with the stored key and report ok with latency, or why it failed',
      params: IntegrationParams,
      querystring: NoQuery,
      response: { 200: TestOutcomeResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req) => ({ data: await service.test(req.actor, req.params.integrationId) }));

  app.get('/rmm/integrations/:integrationId/devices', {
    schema: {
      operationId: 'listRmmDevices',
      tags,
      summary: "List the RMM's devices (live from the provider) with the asset each is linked to, to pick one for an asset",
      params: IntegrationParams,
      querystring: ListDevicesQuery,
      response: { 200: DeviceListResponse, 409: { ...UPSTREAM_502[502], description: 'The integration is inactive (CONFLICT)' }, ...UPSTREAM_502 },
    },
    config: { permission: 'settings:read' },
  }, (req) => service.devices(req.actor, req.params.integrationId, req.query));
};
