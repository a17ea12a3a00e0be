import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams } from '../../platform/http/schemas.ts';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import type { ApiKeysService } from './api-keys.service.ts';
import { ApiKeyListResponse, ApiKeyResponse, CreateApiKeyBody, CreatedApiKeyResponse, ListApiKeysQuery } from './api-keys.schemas.ts';

const tags = ['API keys'];

export const apiKeysRoutes = (service: ApiKeysService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/api-keys', {
    schema: { operationId: 'listApiKeys', tags, summary: 'List active API keys (your own; all with api_key:manage)', querystring: ListApiKeysQuery, response: { 200: ApiKeyListResponse } },
    config: { permission: 'api_key:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/api-keys', {
    schema: { operationId: 'createApiKey', tags, summary: 'Create an API key; the plaintext key is returned only once', body: CreateApiKeyBody, response: { 201: CreatedApiKeyResponse } },
    config: { permission: 'api_key:create' },
  }, async (req, reply) => {
    const key = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/api-keys/${key.id}`);
    return { data: key };
  });

  app.get('/api-keys/:id', {
    schema: { operationId: 'getApiKey', tags, summary: 'Get an API key (never the secret)', params: IdParams, response: { 200: ApiKeyResponse } },
    config: { permission: 'api_key:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.delete('/api-keys/:id', {
    schema: { operationId: 'revokeApiKey', tags, summary: 'Revoke an API key, effective immediately', params: IdParams, response: { 204: { type: 'null', description: 'Revoked' } } },
    config: { permission: 'api_key:delete' },
  }, async (req, reply) => {
    await service.revoke(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
