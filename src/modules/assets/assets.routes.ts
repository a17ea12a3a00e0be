import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import { AssetListResponse, AssetResponse, CreateAssetBody, ListAssetsQuery, NoQuery, UpdateAssetBody } from './assets.schemas.ts';
import type { AssetsService } from './assets.service.ts';

const tags = ['Assets'];

export const assetsRoutes = (service: AssetsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets', {
    schema: {
      operationId: 'listAssets',
      tags,
      summary: 'List assets (filter by client, type, status, warranty status, text; sort; paginate); client-portal keys see only their client\'s',
      querystring: ListAssetsQuery,
      response: { 200: AssetListResponse },
    },
    config: { permission: 'asset:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/assets', {
    schema: {
      operationId: 'createAsset',
      tags,
      summary: 'Create an asset; attributes are validated against its type\'s field schema',
      querystring: NoQuery,
      body: CreateAssetBody,
      response: { 201: AssetResponse },
    },
    config: { permission: 'asset:create' },
  }, async (req, reply) => {
    const asset = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/assets/${asset.asset_id}`);
    return withEtag(req, reply, asset);
  });

  app.get('/assets/:id', {
    schema: { operationId: 'getAsset', tags, summary: 'Get an asset', params: IdParams, querystring: NoQuery, response: { 200: AssetResponse } },
    config: { permission: 'asset:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/assets/:id', {
    schema: {
      operationId: 'updateAsset',
      tags,
      summary: 'Update an asset (partial; honours If-Match)',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateAssetBody,
      response: { 200: AssetResponse },
    },
    config: { permission: 'asset:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/assets/:id', {
    schema: {
      operationId: 'deleteAsset',
      tags,
      summary: 'Delete an asset with its history, schedules, relationships and links (tickets and documents themselves stay)',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'asset:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
