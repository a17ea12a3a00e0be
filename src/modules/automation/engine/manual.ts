import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, RuleCondition } from '../../../platform/db/schema.automation.ts';
import { AppError, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { TriggerEnvelope } from '../automation.types.ts';
import type { ExecutionsService } from '../executions/executions.service.ts';
import type { Execution } from '../executions/executions.schemas.ts';
import { conditionsLog, evaluateConditions } from './conditions.ts';
import { orderedActions, startExecution } from './execute.ts';
import type { BulkExecuteBody, DryRun, ExecuteRuleBody } from './manual.schemas.ts';
import { fillPlaceholders, PlaceholderError } from './placeholders.ts';

/**
 * The manual trigger: POST /automation/rules/{id}/execute and /rules/bulk-execute. Any trigger type may be
 * run by hand ("fire outside the normal trigger"); `data` is the request's `execution_data`.
 *
 * - A dry run (any rule status) evaluates the conditions and fills the placeholders of every action — no
 *   row, job or event is written.
 * - A real run needs the rule `active` or `draft` (a draft may be tried before it is activated); an
 *   `inactive` or `error` rule is a 422 (use a dry run to inspect it). The conditions are evaluated at
 *   the request: when they do not match (and `override_conditions` is false) the execution is recorded as
 *   `skipped` with the condition results in its log, and nothing runs. Otherwise it is queued (202) and the
 *   worker runs it as the rule's owner.
 * - The trigger key is `manual:<new id>`, or — with an `Idempotency-Key` header — `manual:<user>:<key>`, so a
 *   repeated request never starts a second execution even after the platform's 24-hour replay window.
 */

export const RUNNABLE_BY_HAND = ['active', 'draft'] as const;
const MAX_EXECUTION_DATA = 64 * 1024;

interface ManualRule {
  rule_id: string;
  name: string;
  status: string;
  conditions: RuleCondition[];
  condition_logic: string;
  actions: RuleAction[];
}

export function createManualService(deps: { db: Kysely<DB>; executions: ExecutionsService }) {
  const { db, executions } = deps;

  const findRule = (tenant: string, id: string) => db.selectFrom('automation_rules')
    .select(['rule_id', 'name', 'status', 'conditions', 'condition_logic', 'actions'])
    .where('tenant', '=', tenant).where('rule_id', '=', id).executeTakeFirst() as Promise<ManualRule | undefined>;

  function envelopeOf(actor: Actor, data: unknown, path: string): TriggerEnvelope {
    if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) throw validation(path, 'must be a JSON object');
    if (data !== undefined && JSON.stringify(data).length > MAX_EXECUTION_DATA) throw validation(path, `must be at most ${MAX_EXECUTION_DATA} characters as JSON`);
    return { event_type: 'automation.manual', data: (data ?? {}) as Record<string, unknown>, trigger: { type: 'manual', user_id: actor.userId, requested_at: new Date().toISOString() } };
  }

  function dryRun(rule: ManualRule, envelope: TriggerEnvelope, override: boolean): DryRun {
    const outcome = evaluateConditions(rule.conditions ?? [], rule.condition_logic, envelope);
    return {
      dry_run: true,
      matched: outcome.matched,
      would_run: outcome.matched || override,
      condition_logic: rule.condition_logic,
      conditions: outcome.results,
      planned_actions: orderedActions(rule.actions ?? []).map((a, index) => {
        try {
          return { index, type: a.type, config: fillPlaceholders(a.config ?? {}, envelope) };
        } catch (err) {
          if (!(err instanceof PlaceholderError)) throw err;
          return { index, type: a.type, config: a.config ?? {}, error: err.message };
        }
      }),
    };
  }

  /** Starts (or records as skipped) one real run; returns the execution id. */
  async function start(actor: Actor, rule: ManualRule, envelope: TriggerEnvelope, override: boolean, triggerKey: string): Promise<string> {
    if (!(RUNNABLE_BY_HAND as readonly string[]).includes(rule.status)) {
      throw unprocessable(`The rule '${rule.name}' is ${rule.status}; only an active or draft rule can be run (a dry run works for any)`, { reason: 'rule_not_runnable', rule_id: rule.rule_id, status: rule.status });
    }
    const outcome = evaluateConditions(rule.conditions ?? [], rule.condition_logic, envelope);
    const log = conditionsLog('Started by hand', outcome.results, rule.condition_logic, override);
    return withTransaction(db, async (trx) => {
      if (outcome.matched || override) {
        const started = await startExecution(trx, { tenant: actor.tenant, rule, triggerType: 'manual', triggerKey, envelope, createdBy: actor.userId, log });
        return started.execution_id;
      }
      // Not matched: recorded, not run.
      const existing = await trx.selectFrom('automation_executions').select('execution_id')
        .where('tenant', '=', actor.tenant).where('rule_id', '=', rule.rule_id).where('trigger_key', '=', triggerKey).executeTakeFirst();
      if (existing) return existing.execution_id;
      const executionId = newId();
      const now = new Date();
      const actions = orderedActions(rule.actions ?? []);
      await trx.insertInto('automation_executions').values({
        tenant: actor.tenant, execution_id: executionId, rule_id: rule.rule_id, trigger_type: 'manual', trigger_key: triggerKey,
        trigger_data: JSON.stringify(envelope), actions: JSON.stringify(actions), status: 'skipped', actions_total: actions.length,
        started_at: now, completed_at: now, duration_ms: 0, created_by: actor.userId,
        error_message: 'The conditions did not match (override_conditions was false)',
      }).execute();
      await trx.insertInto('automation_execution_logs').values({
        tenant: actor.tenant, log_id: newId(), execution_id: executionId, level: 'info',
        message: `${log.message}; skipped (conditions not matched)`, metadata: JSON.stringify(log.metadata),
      }).execute();
      return executionId;
    });
  }

  const keyOf = (actor: Actor, idempotencyKey: string | undefined) => (idempotencyKey ? `manual:${actor.userId}:${idempotencyKey}` : `manual:${newId()}`);

  return {
    async execute(actor: Actor, ruleId: string, body: ExecuteRuleBody, idempotencyKey?: string): Promise<{ dryRun: DryRun } | { execution: Execution }> {
      const envelope = envelopeOf(actor, body.execution_data, 'body.execution_data');
      const rule = await findRule(actor.tenant, ruleId);
      if (!rule) throw notFound('Automation rule', ruleId);
      if (body.dry_run) return { dryRun: dryRun(rule, envelope, body.override_conditions ?? false) };
      const id = await start(actor, rule, envelope, body.override_conditions ?? false, keyOf(actor, idempotencyKey));
      const [execution] = await executions.many(actor.tenant, [id]);
      return { execution: execution! };
    },

    async bulkExecute(actor: Actor, body: BulkExecuteBody, idempotencyKey?: string): Promise<{ executions: Execution[]; errors: { rule_id: string; code: string; message: string }[] }> {
      const envelope = envelopeOf(actor, body.execution_data, 'body.execution_data');
      const ids: string[] = [];
      const errors: { rule_id: string; code: string; message: string }[] = [];
      for (const ruleId of body.automation_rule_ids) {
        try {
          const rule = await findRule(actor.tenant, ruleId);
          if (!rule) throw notFound('Automation rule', ruleId);
          ids.push(await start(actor, rule, envelope, body.override_conditions ?? false, idempotencyKey ? `${keyOf(actor, idempotencyKey)}:${ruleId}` : keyOf(actor, undefined)));
        } catch (err) {
          if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
          errors.push({ rule_id: ruleId, code: err.code, message: err.message });
        }
      }
      return { executions: await executions.many(actor.tenant, ids), errors };
    },
  };
}

export type ManualService = ReturnType<typeof createManualService>;
