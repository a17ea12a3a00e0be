import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import type { ExecutionsService } from './executions.service.ts';
import { ExecutionDetailResponse, ExecutionListResponse, ExecutionParams, ListExecutionsQuery } from './executions.schemas.ts';

const tags = ['Automation'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const EmptyBody = Type.Object({}, { additionalProperties: false });

export const executionsRoutes = (service: ExecutionsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/automation/executions', {
    schema: {
      operationId: 'listAutomationExecutions',
      tags,
      summary: 'List automation executions, newest first (filters: rule_id, status, trigger_type, from/to on created_at)',
      querystring: ListExecutionsQuery,
      response: { 200: ExecutionListResponse },
    },
    config: { permission: 'automation:read' },
  }, (req) => service.list(req.actor, req.query));

  app.get('/automation/executions/:executionId', {
    schema: {
      operationId: 'getAutomationExecution',
      tags,
      summary: 'Get an automation execution with its steps (one per action) and its log',
      params: ExecutionParams,
      querystring: NoQuery,
      response: { 200: ExecutionDetailResponse },
    },
    config: { permission: 'automation:read' },
  }, async (req) => ({ data: await service.get(req.actor, req.params.executionId) }));

  app.post('/automation/executions/:executionId/retry', {
    schema: {
      operationId: 'retryAutomationExecution',
      tags,
      summary: 'Retry a failed, timed-out or cancelled execution: completed steps are kept, the rest run again (409 for other statuses)',
      params: ExecutionParams,
      querystring: NoQuery,
      body: EmptyBody,
      response: { 202: ExecutionDetailResponse },
    },
    preValidation: emptyBodyIsObject,
    config: { permission: 'automation:update' },
  }, async (req, reply) => {
    const execution = await service.retry(req.actor, req.params.executionId);
    reply.code(202);
    return { data: execution };
  });
};
