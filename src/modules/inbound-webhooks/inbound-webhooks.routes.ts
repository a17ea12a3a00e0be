import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { emptyBodyIsObject } from '../../platform/http/empty-body.ts';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { InboundWebhooksService, WithSecret } from './inbound-webhooks.service.ts';
import {
  ActionListResponse,
  CreateInboundWebhookBody,
  InboundWebhookListResponse,
  InboundWebhookResponse,
  InboundWebhookSecretResponse,
  ListInboundWebhooksQuery,
  NoBody,
  NoQuery,
  UpdateInboundWebhookBody,
} from './inbound-webhooks.schemas.ts';

const tags = ['Inbound webhooks'];


/** The configuration with the one-time secret beside it (ETag of the configuration alone); never cached. */
function withSecret(req: FastifyRequest, reply: FastifyReply, result: WithSecret) {
  const { data } = withEtag(req, reply, result.webhook);
  reply.header('Cache-Control', 'no-store');
  return { data: result.secret === undefined ? data : { ...data, secret: result.secret } };
}

export const inboundWebhooksRoutes = (service: InboundWebhooksService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/inbound-webhooks', {
    schema: { operationId: 'listInboundWebhooks', tags, summary: 'List inbound webhook configurations (without their sample bodies)', querystring: ListInboundWebhooksQuery, response: { 200: InboundWebhookListResponse } },
    config: { permission: 'inbound_webhook:read' },
  }, (req) => service.list(req.actor, req.query));

  app.get('/inbound-webhooks/actions', {
    schema: { operationId: 'listInboundWebhookActions', tags, summary: 'The direct actions a webhook can run, with their target fields', querystring: NoQuery, response: { 200: ActionListResponse } },
    config: { permission: 'inbound_webhook:read' },
  }, async () => ({ data: service.actions() }));

  app.post('/inbound-webhooks', {
    schema: {
      operationId: 'createInboundWebhook',
      tags,
      summary: 'Create an inbound webhook; a secret the service generates is returned once (data.secret)',
      description: 'Expressions are compiled and actions checked against the registry here (400 with the position of a syntax error). A direct action runs with the creator\'s permissions, so the creator must hold the action\'s permissions (403 names them).',
      querystring: NoQuery,
      body: CreateInboundWebhookBody,
      response: { 201: InboundWebhookSecretResponse },
    },
    config: { permission: 'inbound_webhook:create' },
  }, async (req, reply) => {
    const result = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/inbound-webhooks/${result.webhook.inbound_webhook_id}`);
    return withSecret(req, reply, result);
  });

  app.get('/inbound-webhooks/:id', {
    schema: { operationId: 'getInboundWebhook', tags, summary: 'Get an inbound webhook configuration, with its captured sample', params: IdParams, querystring: NoQuery, response: { 200: InboundWebhookResponse } },
    config: { permission: 'inbound_webhook:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/inbound-webhooks/:id', {
    schema: {
      operationId: 'updateInboundWebhook',
      tags,
      summary: 'Update an inbound webhook (partial); a secret generated for a new auth type is returned once',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateInboundWebhookBody,
      response: { 200: InboundWebhookSecretResponse },
    },
    config: { permission: 'inbound_webhook:update' },
  }, async (req, reply) => withSecret(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/inbound-webhooks/:id', {
    schema: { operationId: 'deleteInboundWebhook', tags, summary: 'Delete an inbound webhook with its delivery records', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'inbound_webhook:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/inbound-webhooks/:id/rotate-secret', {
    schema: { operationId: 'rotateInboundWebhookSecret', tags, summary: 'Replace the secret with a generated one, returned once; the old one stops working at once', params: IdParams, querystring: NoQuery, body: NoBody, response: { 200: InboundWebhookSecretResponse } },
    config: { permission: 'inbound_webhook:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withSecret(req, reply, await service.rotateSecret(req.actor, req.params.id)));

  app.post('/inbound-webhooks/:id/capture-sample', {
    schema: { operationId: 'captureInboundWebhookSample', tags, summary: 'The next verified request\'s body becomes the sample (until cleared)', params: IdParams, querystring: NoQuery, body: NoBody, response: { 200: InboundWebhookResponse } },
    config: { permission: 'inbound_webhook:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await service.armCapture(req.actor, req.params.id)));

  app.delete('/inbound-webhooks/:id/capture-sample', {
    schema: { operationId: 'clearInboundWebhookSample', tags, summary: 'Clear the sample and any pending capture', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Cleared' } } },
    config: { permission: 'inbound_webhook:update' },
  }, async (req, reply) => {
    await service.clearCapture(req.actor, req.params.id);
    return reply.code(204).send(null);
  });
};
