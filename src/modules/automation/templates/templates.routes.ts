import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { etagOf, withEtag } from '../../../platform/http/etag.ts';
import { RuleWithSecretResponse, NoQuery, type RuleWithSecret } from '../rules/rules.schemas.ts';
import {
  CreateTemplateBody,
  ListTemplatesQuery,
  TemplateListResponse,
  TemplateParams,
  TemplateResponse,
  UseTemplateBody,
} from './templates.schemas.ts';
import type { TemplatesService } from './templates.service.ts';

const tags = ['Automation'];

const etagWithoutSecret = ({ signing_secret: _secret, ...rule }: RuleWithSecret) => etagOf(rule);

/** Automation templates: the built-in ones and the tenant's own, made from rules; `use` makes a rule of one. */
export const templatesRoutes = (service: TemplatesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/automation/templates', {
    schema: {
      operationId: 'listAutomationTemplates',
      tags,
      summary: 'List automation templates: the built-in ones and the tenant\'s own (filters: category, is_builtin, search)',
      querystring: ListTemplatesQuery,
      response: { 200: TemplateListResponse },
    },
    config: { permission: 'automation:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/automation/templates', {
    schema: {
      operationId: 'createAutomationTemplate',
      tags,
      summary: 'Create a template from a rule: its definition with the chosen fields turned into variables',
      querystring: NoQuery,
      body: CreateTemplateBody,
      response: { 201: TemplateResponse },
    },
    config: { permission: 'automation:create' },
  }, async (req, reply) => {
    const template = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/automation/templates/${template.template_id}`);
    return withEtag(req, reply, template);
  });

  app.get('/automation/templates/:templateId', {
    schema: {
      operationId: 'getAutomationTemplate',
      tags,
      summary: 'Get an automation template (built-in or the tenant\'s own)',
      params: TemplateParams,
      querystring: NoQuery,
      response: { 200: TemplateResponse },
    },
    config: { permission: 'automation:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.templateId)));

  app.post('/automation/templates/:templateId/use', {
    schema: {
      operationId: 'useAutomationTemplate',
      tags,
      summary: 'Create a draft rule owned by the caller from a template, its variables filled in (the rule\'s signing secret is returned once)',
      params: TemplateParams,
      querystring: NoQuery,
      body: UseTemplateBody,
      response: { 201: RuleWithSecretResponse },
    },
    config: { permission: 'automation:create' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const rule = await service.use(req.actor, req.params.templateId, req.body);
    reply.code(201).header('Location', `/api/v1/automation/rules/${rule.rule_id}`).header('ETag', etagWithoutSecret(rule));
    return { data: rule };
  });
};
