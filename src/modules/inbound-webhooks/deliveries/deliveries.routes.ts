import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { normalizeIp } from '../auth.ts';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { NoBody, NoQuery } from '../inbound-webhooks.schemas.ts';
import type { CallerMeta, DeliveriesService } from './deliveries.service.ts';
import { DeliveryListResponse, DeliveryParams, DeliveryResponse, ListDeliveriesQuery, TestBody } from './deliveries.schemas.ts';
import type { Delivery } from './deliveries.schemas.ts';

const tags = ['Inbound webhooks'];

const metaOf = (req: FastifyRequest): CallerMeta => ({ ip: normalizeIp(req.ip), userAgent: req.headers['user-agent'] ?? null, log: req.log });

function created(reply: FastifyReply, delivery: Delivery) {
  reply.code(201).header('Location', `/api/v1/inbound-webhooks/${delivery.inbound_webhook_id}/deliveries/${delivery.delivery_id}`);
  return { data: delivery };
}

export const deliveriesRoutes = (service: DeliveriesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/inbound-webhooks/:id/deliveries', {
    schema: { operationId: 'listInboundWebhookDeliveries', tags, summary: 'List a webhook\'s delivery records, newest first (bodies left out)', params: IdParams, querystring: ListDeliveriesQuery, response: { 200: DeliveryListResponse } },
    config: { permission: 'inbound_webhook:read' },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.get('/inbound-webhooks/:id/deliveries/:deliveryId', {
    schema: { operationId: 'getInboundWebhookDelivery', tags, summary: 'Get a delivery record with its request body', params: DeliveryParams, querystring: NoQuery, response: { 200: DeliveryResponse } },
    config: { permission: 'inbound_webhook:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id, req.params.deliveryId)));

  app.post('/inbound-webhooks/:id/deliveries/:deliveryId/replay', {
    schema: {
      operationId: 'replayInboundWebhookDelivery',
      tags,
      summary: 'Run a kept delivery\'s body again against the current configuration; the new delivery is recorded as its replay',
      description: 'Authentication, the rate limit and the duplicate check are not repeated. The action runs with the creator\'s permissions; the caller must hold them too.',
      params: DeliveryParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 201: DeliveryResponse },
    },
    config: { permission: 'inbound_webhook:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => created(reply, await service.replay(req.actor, req.params.id, req.params.deliveryId, metaOf(req))));

  app.post('/inbound-webhooks/:id/test', {
    schema: {
      operationId: 'testInboundWebhook',
      tags,
      summary: 'Send a synthetic request (default body: the captured sample) through the saved configuration; recorded with is_test',
      description: 'Runs the handler for real unless dry_run is true. Works on inactive webhooks; no rate limit; the idempotency key is computed but not claimed.',
      params: IdParams,
      querystring: NoQuery,
      body: TestBody,
      response: { 201: DeliveryResponse },
    },
    config: { permission: 'inbound_webhook:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => created(reply, await service.test(req.actor, req.params.id, req.body, metaOf(req))));
};
