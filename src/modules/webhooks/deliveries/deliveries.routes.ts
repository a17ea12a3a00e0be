import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withEtag } from '../../../platform/http/etag.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../webhooks.schemas.ts';
import type { DeliveriesService } from './deliveries.service.ts';
import { DeliveryListResponse, DeliveryParams, DeliveryResponse, ListDeliveriesQuery } from './deliveries.schemas.ts';

const tags = ['Webhooks'];

export const deliveriesRoutes = (service: DeliveriesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/webhooks/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'List the delivery attempts of a webhook, newest first (filter by status, event_type, is_test, from, to)',
      params: IdParams,
      querystring: ListDeliveriesQuery,
      response: { 200: DeliveryListResponse },
    },
    config: { permission: 'webhook:read' },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.get('/webhooks/:id/deliveries/:deliveryId', {
    schema: { operationId: 'getWebhookDelivery', tags, summary: 'Get one delivery attempt with its request and response', params: DeliveryParams, querystring: NoQuery, response: { 200: DeliveryResponse } },
    config: { permission: 'webhook:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id, req.params.deliveryId)));

  app.post('/webhooks/:id/deliveries/:deliveryId/retry', {
    schema: {
      operationId: 'retryWebhookDelivery',
      tags,
      summary: 'Queue a fresh attempt cycle for an abandoned or failed delivery (same envelope and event_id); 409 otherwise',
      params: DeliveryParams,
      querystring: NoQuery,
      response: { 202: DeliveryResponse },
    },
    config: { permission: 'webhook:update' },
  }, async (req, reply) => {
    const delivery = await service.retry(req.actor, req.params.id, req.params.deliveryId);
    reply.code(202).header('Location', `/api/v1/webhooks/${req.params.id}/deliveries/${delivery.delivery_id}`);
    return { data: delivery };
  });
};
