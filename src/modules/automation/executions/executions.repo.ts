import type { Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { AutomationExecutionsTable, ExecutionStatus, TriggerType } from '../../../platform/db/schema.automation.ts';
import { defineList } from '../../../platform/http/list.ts';

export type ExecutionRow = Selectable<AutomationExecutionsTable> & { rule_name: string };

const COLUMNS = [
  'e.tenant', 'e.execution_id', 'e.rule_id', 'e.trigger_type', 'e.trigger_key', 'e.trigger_data', 'e.actions', 'e.status', 'e.depth',
  'e.cause_rule_ids', 'e.attempts', 'e.actions_total', 'e.actions_successful', 'e.actions_failed', 'e.failed_action_index',
  'e.error_message', 'e.started_at', 'e.completed_at', 'e.duration_ms', 'e.created_by', 'e.created_at', 'e.updated_at',
] as const;

export async function findExecution(db: Executor, tenant: string, id: string, lock = false): Promise<ExecutionRow | undefined> {
  let q = db.selectFrom('automation_executions as e')
    .innerJoin('automation_rules as r', (j) => j.onRef('r.tenant', '=', 'e.tenant').onRef('r.rule_id', '=', 'e.rule_id'))
    .select([...COLUMNS, 'r.name as rule_name'])
    .where('e.tenant', '=', tenant).where('e.execution_id', '=', id);
  if (lock) q = q.forUpdate('e');
  return q.executeTakeFirst();
}

export async function findExecutions(db: Executor, tenant: string, ids: readonly string[]): Promise<ExecutionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('automation_executions as e')
    .innerJoin('automation_rules as r', (j) => j.onRef('r.tenant', '=', 'e.tenant').onRef('r.rule_id', '=', 'e.rule_id'))
    .select([...COLUMNS, 'r.name as rule_name'])
    .where('e.tenant', '=', tenant).where('e.execution_id', 'in', ids)
    .execute();
}

/** Sets an execution's unfinished steps back to pending for another run, their attempts from zero again. */
export async function resetUnfinishedSteps(db: Executor, tenant: string, executionId: string): Promise<void> {
  await db.updateTable('automation_execution_steps')
    .set({ status: 'pending', attempts: 0, error_message: null, started_at: null, completed_at: null, duration_ms: null, result: null })
    .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('status', '<>', 'completed')
    .execute();
}

export function stepsOf(db: Executor, tenant: string, id: string) {
  return db.selectFrom('automation_execution_steps').selectAll()
    .where('tenant', '=', tenant).where('execution_id', '=', id).orderBy('action_index').execute();
}

export function logsOf(db: Executor, tenant: string, id: string) {
  return db.selectFrom('automation_execution_logs').selectAll()
    .where('tenant', '=', tenant).where('execution_id', '=', id).orderBy('logged_at').orderBy('log_id').limit(1000).execute();
}

export interface ExecutionListFilter {
  ruleId?: string;
  status?: ExecutionStatus;
  triggerType?: TriggerType;
  from?: string;
  to?: string;
}

export function executionList(db: Executor, tenant: string, f: ExecutionListFilter) {
  let from = db.selectFrom('automation_executions as e').where('e.tenant', '=', tenant);
  let page = db.selectFrom('automation_executions as e')
    .innerJoin('automation_rules as r', (j) => j.onRef('r.tenant', '=', 'e.tenant').onRef('r.rule_id', '=', 'e.rule_id'))
    .select([...COLUMNS, 'r.name as rule_name'])
    .where('e.tenant', '=', tenant);
  if (f.ruleId) {
    from = from.where('e.rule_id', '=', f.ruleId);
    page = page.where('e.rule_id', '=', f.ruleId);
  }
  if (f.status) {
    from = from.where('e.status', '=', f.status);
    page = page.where('e.status', '=', f.status);
  }
  if (f.triggerType) {
    from = from.where('e.trigger_type', '=', f.triggerType);
    page = page.where('e.trigger_type', '=', f.triggerType);
  }
  if (f.from) {
    from = from.where('e.created_at', '>=', new Date(f.from));
    page = page.where('e.created_at', '>=', new Date(f.from));
  }
  if (f.to) {
    from = from.where('e.created_at', '<', new Date(f.to));
    page = page.where('e.created_at', '<', new Date(f.to));
  }
  return defineList({
    from,
    page,
    sorts: {
      created_at: ['e.created_at'],
      started_at: [{ by: 'e.started_at', nullsLast: true }],
      duration_ms: [{ by: 'e.duration_ms', nullsLast: true }],
    },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'e.execution_id',
    updatedAt: 'e.updated_at',
  });
}
