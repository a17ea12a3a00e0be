import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { UsageService } from './usage.service.ts';
import { CreateUsageRecordBody, ListUsageRecordsQuery, UpdateUsageRecordBody, UsageRecordListResponse, UsageRecordResponse } from './usage.schemas.ts';

const tags = ['Usage records'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** /usage-records: quantities used by clients of items billed by usage (quantities up to four decimals). */
export const usageRoutes = (service: UsageService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/usage-records', {
    schema: { operationId: 'listUsageRecords', tags, summary: 'List recorded usage (newest usage_date first)', querystring: ListUsageRecordsQuery, response: { 200: UsageRecordListResponse } },
    config: { permission: 'billing:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/usage-records', {
    schema: { operationId: 'createUsageRecord', tags, summary: 'Record usage of an item billed by usage for a client', querystring: NoQuery, body: CreateUsageRecordBody, response: { 201: UsageRecordResponse } },
    config: { permission: 'billing:create' },
  }, async (req, reply) => {
    const record = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/usage-records/${record.usage_id}`);
    return withEtag(req, reply, record);
  });
  app.get('/usage-records/:id', {
    schema: { operationId: 'getUsageRecord', tags, summary: 'Get a usage record', params: IdParams, querystring: NoQuery, response: { 200: UsageRecordResponse } },
    config: { permission: 'billing:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/usage-records/:id', {
    schema: { operationId: 'updateUsageRecord', tags, summary: 'Correct a usage record (quantity, date, description)', params: IdParams, querystring: NoQuery, body: UpdateUsageRecordBody, response: { 200: UsageRecordResponse } },
    config: { permission: 'billing:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/usage-records/:id', {
    schema: { operationId: 'deleteUsageRecord', tags, summary: 'Delete a usage record', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'billing:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
