import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import type { KbTemplatesService } from './templates.service.ts';
import {
  CreateKbTemplateBody,
  KbTemplateListResponse,
  KbTemplateParams,
  KbTemplateResponse,
  ListKbTemplatesQuery,
  UpdateKbTemplateBody,
} from './templates.schemas.ts';

const tags = ['Knowledge base'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * Article templates. Only authors need them, so reading them takes `kb:create` (not `kb:read`): readers
 * without it, client-portal users among them, get a 403.
 */
export const kbTemplatesRoutes = (service: KbTemplatesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/kb-articles/templates', {
    schema: {
      operationId: 'listKbTemplates',
      tags,
      summary: 'List knowledge-base article templates, built-ins included (needs kb:create: only authors use templates)',
      querystring: ListKbTemplatesQuery,
      response: { 200: KbTemplateListResponse },
    },
    config: { permission: 'kb:create' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/kb-articles/templates', {
    schema: {
      operationId: 'createKbTemplate',
      tags,
      summary: 'Create a knowledge-base article template (names are unique per tenant, any case)',
      querystring: NoQuery,
      body: CreateKbTemplateBody,
      response: { 201: KbTemplateResponse },
    },
    config: { permission: 'kb:create' },
  }, async (req, reply) => {
    const template = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/kb-articles/templates/${template.template_id}`);
    return withEtag(req, reply, template);
  });

  app.get('/kb-articles/templates/:templateId', {
    schema: {
      operationId: 'getKbTemplate',
      tags,
      summary: 'Get a knowledge-base article template with its Markdown (needs kb:create: only authors use templates)',
      params: KbTemplateParams,
      querystring: NoQuery,
      response: { 200: KbTemplateResponse },
    },
    config: { permission: 'kb:create' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.templateId)));

  app.put('/kb-articles/templates/:templateId', {
    schema: {
      operationId: 'updateKbTemplate',
      tags,
      summary: 'Update a knowledge-base article template (partial; built-ins can be edited too)',
      params: KbTemplateParams,
      querystring: NoQuery,
      body: UpdateKbTemplateBody,
      response: { 200: KbTemplateResponse },
    },
    config: { permission: 'kb:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.templateId, req.body, ifMatchOf(req))));

  app.delete('/kb-articles/templates/:templateId', {
    schema: {
      operationId: 'deleteKbTemplate',
      tags,
      summary: 'Delete a knowledge-base article template; built-ins are a 422; articles made from it keep their content and lose the link',
      params: KbTemplateParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'kb:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.templateId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
