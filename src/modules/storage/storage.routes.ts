import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import type { StorageService } from './storage.service.ts';
import {
  BulkWriteBody, BulkWriteResponse, DeleteRecordQuery, ListRecordsQuery, NamespaceParams, PutRecordBody, RecordListResponse, RecordParams, RecordResponse,
} from './storage.schemas.ts';

const tags = ['Storage'];
const noStore = { 'Cache-Control': 'no-store' };
/** Bulk bodies may carry 1 MiB of keys, values and metadata plus JSON framing; the service checks the 1 MiB. */
const BULK_BODY_LIMIT = 2 * 1024 * 1024;

export const storageRoutes = (service: StorageService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/storage/namespaces/:namespace/records', {
    schema: { operationId: 'listStorageRecords', tags, summary: 'List a namespace\'s records by key, with an opaque cursor', params: NamespaceParams, querystring: ListRecordsQuery, response: { 200: RecordListResponse } },
    config: { permission: 'storage:read' },
  }, async (req, reply) => {
    reply.headers(noStore);
    return { data: await service.list(req.actor, req.params.namespace, req.query) };
  });

  app.post('/storage/namespaces/:namespace/records', {
    bodyLimit: BULK_BODY_LIMIT,
    schema: { operationId: 'bulkWriteStorageRecords', tags, summary: 'Write up to 100 records in one transaction (all or none)', params: NamespaceParams, body: BulkWriteBody, response: { 200: BulkWriteResponse } },
    config: { permission: 'storage:write' },
  }, async (req, reply) => {
    reply.headers(noStore);
    return { data: { items: await service.bulk(req.actor, req.params.namespace, req.body.items) } };
  });

  app.get('/storage/namespaces/:namespace/records/:key', {
    schema: { operationId: 'getStorageRecord', tags, summary: 'Get a record', params: RecordParams, response: { 200: RecordResponse } },
    config: { permission: 'storage:read' },
  }, async (req, reply) => {
    reply.headers(noStore);
    return withEtag(req, reply, await service.get(req.actor, req.params.namespace, req.params.key));
  });

  app.put('/storage/namespaces/:namespace/records/:key', {
    schema: { operationId: 'putStorageRecord', tags, summary: 'Create (201) or replace (200) a record; ifRevision makes it conditional', params: RecordParams, body: PutRecordBody, response: { 200: RecordResponse, 201: RecordResponse } },
    config: { permission: 'storage:write' },
  }, async (req, reply) => {
    const { namespace, key } = req.params;
    const { record, created } = await service.put(req.actor, namespace, key, req.body, ifMatchOf(req));
    reply.headers(noStore);
    if (created) reply.code(201).header('Location', `/api/v1/storage/namespaces/${namespace}/records/${encodeURIComponent(key)}`);
    return withEtag(req, reply, record);
  });

  app.delete('/storage/namespaces/:namespace/records/:key', {
    schema: { operationId: 'deleteStorageRecord', tags, summary: 'Delete a record; ifRevision makes it conditional', params: RecordParams, querystring: DeleteRecordQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'storage:write' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.namespace, req.params.key, req.query.ifRevision, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
