import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import type { ManualService } from './manual.ts';
import { BulkExecuteBody, BulkExecuteResponse, DryRunResponse, ExecuteRuleBody, ExecutionStartedResponse, RuleParams } from './manual.schemas.ts';

const tags = ['Automation'];
const NoQuery = Type.Object({}, { additionalProperties: false });

export const manualRoutes = (service: ManualService): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/automation/rules/bulk-execute', {
    schema: {
      operationId: 'bulkExecuteAutomationRules',
      tags,
      summary: 'Run 1–20 rules by hand with the same execution_data; each starts on its own (202; failures listed in errors)',
      querystring: NoQuery,
      body: BulkExecuteBody,
      response: { 202: BulkExecuteResponse },
    },
    config: { permission: 'automation:update' },
  }, async (req, reply) => {
    const result = await service.bulkExecute(req.actor, req.body, req.idempotency?.key);
    reply.code(202);
    return { data: result };
  });

  app.post('/automation/rules/:ruleId/execute', {
    schema: {
      operationId: 'executeAutomationRule',
      tags,
      summary: 'Run a rule by hand (202 with the queued execution; skipped when its conditions do not match), or dry-run it (200: conditions and planned actions, nothing written)',
      params: RuleParams,
      querystring: NoQuery,
      body: ExecuteRuleBody,
      response: { 200: DryRunResponse, 202: ExecutionStartedResponse },
    },
    preValidation: emptyBodyIsObject,
    config: { permission: 'automation:update' },
  }, async (req, reply) => {
    const result = await service.execute(req.actor, req.params.ruleId, req.body, req.idempotency?.key);
    if ('dryRun' in result) return { data: result.dryRun };
    reply.code(202).header('Location', `/api/v1/automation/executions/${result.execution.execution_id}`);
    return { data: result.execution };
  });
};
