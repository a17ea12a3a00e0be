import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { AutomationExecutionLogsTable, AutomationExecutionStepsTable } from '../../../platform/db/schema.automation.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { listPage, type ListPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { enqueue } from '../../../platform/jobs/enqueue.ts';
import { iso } from '../../../platform/time.ts';
import { EXECUTE_JOB } from '../engine/execute.ts';
import { executionList, findExecution, findExecutions, logsOf, resetUnfinishedSteps, stepsOf, type ExecutionRow } from './executions.repo.ts';
import { RETRYABLE_STATUSES, type Execution, type ExecutionDetail, type ExecutionLog, type ExecutionStep, type ListExecutionsQuery } from './executions.schemas.ts';

export function toExecution(row: ExecutionRow): Execution {
  return {
    execution_id: row.execution_id,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    trigger_type: row.trigger_type,
    trigger_key: row.trigger_key,
    trigger_data: row.trigger_data,
    status: row.status,
    depth: row.depth,
    cause_rule_ids: row.cause_rule_ids ?? [],
    attempts: row.attempts,
    actions_total: row.actions_total,
    actions_successful: row.actions_successful,
    actions_failed: row.actions_failed,
    failed_action_index: row.failed_action_index,
    error_message: row.error_message,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    duration_ms: row.duration_ms,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const toStep = (s: Selectable<AutomationExecutionStepsTable>): ExecutionStep => ({
  action_index: s.action_index,
  action_type: s.action_type,
  status: s.status,
  attempts: s.attempts,
  started_at: iso(s.started_at),
  completed_at: iso(s.completed_at),
  duration_ms: s.duration_ms,
  result: s.result,
  error_message: s.error_message,
});

const toLog = (l: Selectable<AutomationExecutionLogsTable>): ExecutionLog => ({
  log_id: l.log_id,
  timestamp: iso(l.logged_at),
  level: l.level,
  message: l.message,
  action_index: l.action_index,
  metadata: l.metadata,
});

/** Executions of the tenant's rules: read them, with their steps and log, and retry a failed one. */
export function createExecutionsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  async function detail(tenant: string, id: string): Promise<ExecutionDetail> {
    const row = await findExecution(db, tenant, id);
    if (!row) throw notFound('Automation execution', id);
    const [steps, logs] = await Promise.all([stepsOf(db, tenant, id), logsOf(db, tenant, id)]);
    return { ...toExecution(row), steps: steps.map(toStep), logs: logs.map(toLog) };
  }

  return {
    list(actor: Actor, query: ListExecutionsQuery): Promise<ListPage<Execution>> {
      const spec = executionList(db, actor.tenant, { ruleId: query.rule_id, status: query.status, triggerType: query.trigger_type, from: query.from, to: query.to });
      return listPage(query, spec, (rows) => rows.map(toExecution));
    },

    get(actor: Actor, id: string): Promise<ExecutionDetail> {
      return detail(actor.tenant, id);
    },

    /** Executions by id (those that exist, in the order asked). */
    async many(tenant: string, ids: readonly string[]): Promise<Execution[]> {
      const rows = await findExecutions(db, tenant, ids);
      const byId = new Map(rows.map((r) => [r.execution_id, r]));
      return ids.flatMap((id) => (byId.has(id) ? [toExecution(byId.get(id)!)] : []));
    },

    /**
     * Runs a failed, timed-out or cancelled execution again: its completed steps are kept (never repeated),
     * the others reset to pending, and a job is queued. It runs the actions it was created with (a rule
     * changed since is run anew with POST /automation/rules/{id}/execute). 409 for any other status.
     */
    async retry(actor: Actor, id: string): Promise<ExecutionDetail> {
      await withTransaction(db, async (trx) => {
        const row = await findExecution(trx, actor.tenant, id, true);
        if (!row) throw notFound('Automation execution', id);
        if (!(RETRYABLE_STATUSES as readonly string[]).includes(row.status)) {
          throw conflict(`Only a failed, timed-out or cancelled execution can be retried; this one is ${row.status}`, { status: row.status, retryable_statuses: RETRYABLE_STATUSES });
        }
        const now = new Date();
        await resetUnfinishedSteps(trx, actor.tenant, id);
        await trx.updateTable('automation_executions')
          .set({
            status: 'pending', failed_action_index: null, error_message: null, started_at: null, completed_at: null, duration_ms: null,
            actions_failed: 0, updated_at: now,
          })
          .where('tenant', '=', actor.tenant).where('execution_id', '=', id)
          .execute();
        await trx.insertInto('automation_execution_logs').values({
          tenant: actor.tenant, log_id: newId(), execution_id: id, level: 'info',
          message: `Retry requested (was ${row.status}); completed steps are kept`,
          metadata: JSON.stringify({ user_id: actor.userId, previous_status: row.status, previous_error: row.error_message }),
        }).execute();
        await enqueue(trx, { name: EXECUTE_JOB, tenant: actor.tenant, payload: { execution_id: id } });
      });
      return detail(actor.tenant, id);
    },
  };
}

export type ExecutionsService = ReturnType<typeof createExecutionsService>;
