import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BulkService } from './bulk.service.ts';
import { BulkCreateUsersBody, BulkDeactivateUsersBody, BulkOutcomeResponse } from './bulk.schemas.ts';
import { metaOf } from './users.access.ts';
import { NoQuery } from './users.schemas.ts';

const tags = ['Users'];

/** Per-item results; one item failing never fails the others, so the answer is 200 even when some did. */
export const bulkRoutes = (service: BulkService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/users/bulk/create', {
    schema: {
      operationId: 'bulkCreateUsers',
      tags,
      summary: 'Create up to 100 users; each item succeeds or fails on its own (dry_run checks without writing)',
      querystring: NoQuery,
      body: BulkCreateUsersBody,
      response: { 200: BulkOutcomeResponse },
    },
    config: { permission: 'user:create' },
  }, async (req) => ({ data: await service.create(req.actor, req.body, metaOf(req)) }));

  app.put('/users/bulk/deactivate', {
    schema: {
      operationId: 'bulkDeactivateUsers',
      tags,
      summary: 'Deactivate (or reactivate) up to 100 users; never yourself nor the last active Admin',
      querystring: NoQuery,
      body: BulkDeactivateUsersBody,
      response: { 200: BulkOutcomeResponse },
    },
    config: { permission: 'user:update' },
  }, async (req) => ({ data: await service.deactivate(req.actor, req.body, metaOf(req)) }));
};
