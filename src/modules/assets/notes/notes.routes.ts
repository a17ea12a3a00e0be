import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import type { AssetNotesService } from './notes.service.ts';
import { AssetNotesResponse, PutAssetNotesBody } from './notes.schemas.ts';

const tags = ['Assets'];

export const assetNotesRoutes = (service: AssetNotesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/:id/notes', {
    schema: { operationId: 'getAssetNotes', tags, summary: 'Get the asset\'s internal notes (markdown); not for client-portal keys', params: IdParams, querystring: NoQuery, response: { 200: AssetNotesResponse } },
    config: { permission: 'asset:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/assets/:id/notes', {
    schema: { operationId: 'updateAssetNotes', tags, summary: 'Replace the asset\'s internal notes', params: IdParams, querystring: NoQuery, body: PutAssetNotesBody, response: { 200: AssetNotesResponse } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => withEtag(req, reply, await service.put(req.actor, req.params.id, req.body.notes, ifMatchOf(req))));

  app.delete('/assets/:id/notes', {
    schema: { operationId: 'deleteAssetNotes', tags, summary: 'Clear the asset\'s internal notes', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Cleared' } } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    await service.clear(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
