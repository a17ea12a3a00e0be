import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import { CreateRelationshipBody, ListRelationshipsQuery, RelationshipListResponse, RelationshipParams, RelationshipResponse } from './relationships.schemas.ts';
import type { RelationshipsService } from './relationships.service.ts';

const tags = ['Asset relationships'];

export const relationshipsRoutes = (service: RelationshipsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/:id/relationships', {
    schema: { operationId: 'listAssetRelationships', tags, summary: 'The asset\'s relationships in both directions, each with its direction and the other asset', params: IdParams, querystring: ListRelationshipsQuery, response: { 200: RelationshipListResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id, req.query) }));

  app.post('/assets/:id/relationships', {
    schema: { operationId: 'createAssetRelationship', tags, summary: 'Relate this asset to another (this asset <relationship_type> related asset); no self links, no duplicates', params: IdParams, querystring: NoQuery, body: CreateRelationshipBody, response: { 201: RelationshipResponse } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    reply.code(201);
    return { data: await service.create(req.actor, req.params.id, req.body) };
  });

  app.delete('/assets/relationships/:relationshipId', {
    schema: { operationId: 'deleteAssetRelationship', tags, summary: 'Remove a relationship between two assets', params: RelationshipParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.relationshipId);
    return reply.code(204).send(null);
  });
};
