import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { etagOf, ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';
import { EventTypesResponse, ListWebhooksQuery, NoQuery, TestOutcomeResponse, createWebhookSchemas, type WebhookWithSecret } from './webhooks.schemas.ts';
import { payloadEntityFields } from '../../platform/events/vocabulary.ts';

const tags = ['Webhooks'];

/** The ETag of the webhook as GET shows it (the one-time secret is not part of the representation). */
const etagWithoutSecret = ({ secret: _secret, ...webhook }: WebhookWithSecret) => etagOf(webhook);

export const webhooksRoutes = (service: WebhooksService): FastifyPluginAsyncTypebox => async (app) => {
  // payload_fields is keyed by the payload entities of the installed event vocabulary.
  const { CreateWebhookBody, UpdateWebhookBody, WebhookListResponse, WebhookResponse, WebhookWithSecretResponse } = createWebhookSchemas(payloadEntityFields());
  app.get('/webhooks', {
    schema: { operationId: 'listWebhooks', tags, summary: 'List outbound webhooks (filter by is_active or event_type, sort, paginate)', querystring: ListWebhooksQuery, response: { 200: WebhookListResponse } },
    config: { permission: 'webhook:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/webhooks', {
    schema: {
      operationId: 'createWebhook',
      tags,
      summary: 'Create an outbound webhook; the response carries its signing secret, the only time it is shown',
      querystring: NoQuery,
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecretResponse },
    },
    config: { permission: 'webhook:create' },
  }, async (req, reply) => {
    const webhook = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/webhooks/${webhook.webhook_id}`).header('ETag', etagWithoutSecret(webhook));
    return { data: webhook };
  });

  // A static path: Fastify matches it before /webhooks/:id.
  app.get('/webhooks/events', {
    schema: { operationId: 'listWebhookEventTypes', tags, summary: 'The full event vocabulary, with which types are delivered to webhooks', querystring: NoQuery, response: { 200: EventTypesResponse } },
    config: { permission: 'webhook:read' },
  }, async () => ({ data: service.events() }));

  app.get('/webhooks/:id', {
    schema: { operationId: 'getWebhook', tags, summary: 'Get an outbound webhook (custom header values masked)', params: IdParams, querystring: NoQuery, response: { 200: WebhookResponse } },
    config: { permission: 'webhook:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/webhooks/:id', {
    schema: {
      operationId: 'updateWebhook',
      tags,
      summary: 'Update an outbound webhook (partial); is_active: true re-enables it and clears the failure window',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateWebhookBody,
      response: { 200: WebhookResponse },
    },
    config: { permission: 'webhook:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/webhooks/:id', {
    schema: { operationId: 'deleteWebhook', tags, summary: 'Delete an outbound webhook with its delivery history', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'webhook:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/webhooks/:id/secret/rotate', {
    schema: {
      operationId: 'rotateWebhookSecret',
      tags,
      summary: 'Replace the signing secret; the new one is returned once and the old one stops at once',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: WebhookWithSecretResponse },
    },
    config: { permission: 'webhook:update' },
  }, async (req, reply) => {
    const webhook = await service.rotateSecret(req.actor, req.params.id);
    reply.header('ETag', etagWithoutSecret(webhook));
    return { data: webhook };
  });

  app.post('/webhooks/:id/test', {
    schema: {
      operationId: 'testWebhook',
      tags,
      summary: 'Send a signed webhook.test envelope now and report the outcome (recorded as a test delivery; no retry, no rate limit)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: TestOutcomeResponse },
    },
    config: { permission: 'webhook:update' },
  }, async (req) => ({ data: await service.test(req.actor, req.params.id) }));
};
