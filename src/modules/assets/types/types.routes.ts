import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import type { AssetTypesService } from './types.service.ts';
import { AssetTypeListResponse, AssetTypeResponse, CreateAssetTypeBody, SlugParams, UpdateAssetTypeBody } from './types.schemas.ts';

const tags = ['Asset types'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const assetTypesRoutes = (service: AssetTypesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/asset-types', {
    schema: { operationId: 'listAssetTypes', tags, summary: 'List the tenant\'s asset types (built-in first) with their field schemas and asset counts', querystring: NoQuery, response: { 200: AssetTypeListResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.list(req.actor) }));

  app.post('/asset-types', {
    schema: { operationId: 'createAssetType', tags, summary: 'Create an asset type with its attribute field schema', querystring: NoQuery, body: CreateAssetTypeBody, response: { 201: AssetTypeResponse } },
    config: { permission: 'asset:create' },
  }, async (req, reply) => {
    const type = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/asset-types/${type.slug}`);
    return withEtag(req, reply, type);
  });

  app.get('/asset-types/:slug', {
    schema: { operationId: 'getAssetType', tags, summary: 'Get an asset type', params: SlugParams, querystring: NoQuery, response: { 200: AssetTypeResponse } },
    config: { permission: 'asset:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.slug)));

  app.put('/asset-types/:slug', {
    schema: {
      operationId: 'updateAssetType',
      tags,
      summary: 'Update an asset type (partial); built-in field schemas are fixed; a schema that existing assets would break is a 409',
      params: SlugParams,
      querystring: NoQuery,
      body: UpdateAssetTypeBody,
      response: { 200: AssetTypeResponse },
    },
    config: { permission: 'asset:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.slug, req.body, ifMatchOf(req))));

  app.delete('/asset-types/:slug', {
    schema: { operationId: 'deleteAssetType', tags, summary: 'Delete a tenant asset type; built-ins (422) and types in use (409) cannot be deleted', params: SlugParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'asset:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.slug, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
