import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery } from '../assets.schemas.ts';
import { BulkResponse, BulkStatusBody, BulkUpdateBody } from './bulk.schemas.ts';
import type { BulkService } from './bulk.service.ts';

const tags = ['Assets'];

export const bulkRoutes = (service: BulkService): FastifyPluginAsyncTypebox => async (app) => {
  app.put('/assets/bulk-status', {
    schema: { operationId: 'bulkUpdateAssetStatus', tags, summary: 'Set the status of 1–100 assets at once (all or nothing)', querystring: NoQuery, body: BulkStatusBody, response: { 200: BulkResponse } },
    config: { permission: 'asset:update' },
  }, (req) => service.setStatus(req.actor, req.body));

  app.put('/assets/bulk-update', {
    schema: { operationId: 'bulkUpdateAssets', tags, summary: 'Apply partial updates to 1–100 assets at once (all or nothing)', querystring: NoQuery, body: BulkUpdateBody, response: { 200: BulkResponse } },
    config: { permission: 'asset:update' },
  }, (req) => service.update(req.actor, req.body));
};
