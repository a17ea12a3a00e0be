import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { etagOf, ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import type { RulesService } from './rules.service.ts';
import {
  BulkStatusBody,
  BulkStatusResponse,
  CreateRuleBody,
  ListRulesQuery,
  NoQuery,
  RuleListResponse,
  RuleParams,
  RuleResponse,
  RuleWithSecretResponse,
  UpdateRuleBody,
  type RuleWithSecret,
} from './rules.schemas.ts';

const tags = ['Automation'];

/** The ETag of a rule is that of its representation without the one-time secret. */
const etagWithoutSecret = ({ signing_secret: _secret, ...rule }: RuleWithSecret) => etagOf(rule);

/** Automation rules: a trigger, conditions over its envelope, and ordered actions run as the rule's owner. */
export const rulesRoutes = (service: RulesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/automation/rules', {
    schema: {
      operationId: 'listAutomationRules',
      tags,
      summary: 'List automation rules (filters: status, trigger_type, event_type, tag, search)',
      querystring: ListRulesQuery,
      response: { 200: RuleListResponse },
    },
    config: { permission: 'automation:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/automation/rules', {
    schema: {
      operationId: 'createAutomationRule',
      tags,
      summary: 'Create an automation rule owned by the caller (its signing secret is returned once)',
      description: 'The trigger, every condition and every action are validated against the schemas GET /automation/meta publishes (400 naming the path). The caller, whose permissions the actions will run with, must hold every permission the actions need (422).',
      querystring: NoQuery,
      body: CreateRuleBody,
      response: { 201: RuleWithSecretResponse },
    },
    config: { permission: 'automation:create' },
  }, async (req, reply) => {
    const rule = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/automation/rules/${rule.rule_id}`).header('ETag', etagWithoutSecret(rule));
    return { data: rule };
  });

  app.post('/automation/rules/bulk-status', {
    schema: {
      operationId: 'bulkSetAutomationRuleStatus',
      tags,
      summary: 'Set the status of 1–100 automation rules at once (all or nothing)',
      querystring: NoQuery,
      body: BulkStatusBody,
      response: { 200: BulkStatusResponse },
    },
    config: { permission: 'automation:update' },
  }, (req) => service.bulkStatus(req.actor, req.body));

  app.get('/automation/rules/:ruleId', {
    schema: {
      operationId: 'getAutomationRule',
      tags,
      summary: 'Get an automation rule',
      params: RuleParams,
      querystring: NoQuery,
      response: { 200: RuleResponse },
    },
    config: { permission: 'automation:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.ruleId)));

  app.put('/automation/rules/:ruleId', {
    schema: {
      operationId: 'updateAutomationRule',
      tags,
      summary: 'Update an automation rule (partial; the result is validated as a whole rule)',
      params: RuleParams,
      querystring: NoQuery,
      body: UpdateRuleBody,
      response: { 200: RuleResponse },
    },
    config: { permission: 'automation:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.ruleId, req.body, ifMatchOf(req))));

  app.delete('/automation/rules/:ruleId', {
    schema: {
      operationId: 'deleteAutomationRule',
      tags,
      summary: 'Delete an automation rule with its execution history',
      params: RuleParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'automation:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.ruleId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/automation/rules/:ruleId/signing-secret/rotate', {
    schema: {
      operationId: 'rotateAutomationRuleSigningSecret',
      tags,
      summary: 'Replace the rule\'s signing secret; the new one is returned once and the old one stops at once',
      params: RuleParams,
      querystring: NoQuery,
      response: { 200: RuleWithSecretResponse },
    },
    config: { permission: 'automation:update' },
  }, async (req, reply) => {
    const rule = await service.rotateSecret(req.actor, req.params.ruleId);
    reply.header('ETag', etagWithoutSecret(rule));
    return { data: rule };
  });
};
