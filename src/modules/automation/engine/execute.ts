import { sql, type Transaction } from 'kysely';
import { notifyAfterCommit } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, TriggerType } from '../../../platform/db/schema.automation.ts';
import type { EventCause } from '../../../platform/events/cause.ts';
import { newId } from '../../../platform/ids.ts';
import { JOBS_CHANNEL } from '../../../platform/jobs/types.ts';
import type { TriggerEnvelope } from '../automation.types.ts';

/** The job that runs one execution (payload `{execution_id}`, the execution's tenant). */
export const EXECUTE_JOB = 'automation.execute';

/** What starting an execution needs of its rule. */
export interface StartRule {
  rule_id: string;
  actions: readonly RuleAction[];
}

export interface StartExecutionInput {
  tenant: string;
  rule: StartRule;
  triggerType: TriggerType;
  /** Unique per rule: the event id, `schedule:<due ISO time>`, `inbound:<delivery id>`, `manual:<id>`. */
  triggerKey: string;
  envelope: TriggerEnvelope;
  /** The cause of the triggering event (its chain of rules and depth); null for a user's own change. */
  cause?: EventCause | null;
  createdBy?: string | null;
  /** Not before this time (an event rule's delay_minutes); default now. */
  runAt?: Date;
  /** The first log line of the execution (how it was triggered, the condition results in its metadata). */
  log?: { message: string; metadata?: Record<string, unknown> };
}

export interface StartedExecution {
  execution_id: string;
  /** False when the (rule, trigger key) already had an execution (a repeated trigger): nothing was enqueued. */
  created: boolean;
}

/** The rule's actions in their run order (`order`, then their position): step i runs actions[i]. */
export function orderedActions(actions: readonly RuleAction[]): RuleAction[] {
  return actions.map((a, i) => ({ a, i })).sort((x, y) => (x.a.order ?? 0) - (y.a.order ?? 0) || x.i - y.i).map((x) => x.a);
}

/**
 * Creates executions and their jobs in the caller's transaction, in one statement however many: each is
 * unique per (tenant, rule, trigger key) — a trigger delivered twice adds nothing — and only the new ones
 * get an `automation.execute` job. The execution keeps the rule's actions as they are now (a resumed or
 * retried execution runs what it started with); its depth and chain of rules come from the cause.
 * Returns the new executions' ids, in input order (the repeated ones are absent).
 */
export async function startExecutions(trx: Transaction<DB>, inputs: readonly StartExecutionInput[]): Promise<{ tenant: string; execution_id: string; rule_id: string; trigger_key: string }[]> {
  if (inputs.length === 0) return [];
  const rows = inputs.map((input) => {
    const actions = orderedActions(input.rule.actions);
    return {
      tenant: input.tenant,
      execution_id: newId(),
      job_id: newId(),
      rule_id: input.rule.rule_id,
      trigger_type: input.triggerType,
      trigger_key: input.triggerKey,
      trigger_data: JSON.stringify(input.envelope),
      actions: JSON.stringify(actions),
      actions_total: actions.length,
      depth: input.cause?.depth ?? 0,
      cause_rule_ids: `{${(input.cause?.rule_ids ?? []).join(',')}}`,
      created_by: input.createdBy ?? null,
      log_id: newId(),
      log_message: (input.log?.message ?? `Triggered (${input.triggerType})`).slice(0, 2000),
      log_metadata: JSON.stringify(input.log?.metadata ?? { trigger_key: input.triggerKey }),
      run_at: input.runAt?.toISOString() ?? null,
    };
  });
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
  const { rows: inserted } = await sql<{ tenant: string; execution_id: string; rule_id: string; trigger_key: string }>`
    with input as (
      select * from unnest(
        ${col('tenant')}::uuid[], ${col('execution_id')}::uuid[], ${col('job_id')}::uuid[], ${col('rule_id')}::uuid[],
        ${col('trigger_type')}::text[], ${col('trigger_key')}::text[], ${col('trigger_data')}::jsonb[], ${col('actions')}::jsonb[],
        ${col('actions_total')}::int[], ${col('depth')}::int[], ${col('cause_rule_ids')}::text[], ${col('created_by')}::uuid[],
        ${col('log_id')}::uuid[], ${col('log_message')}::text[], ${col('log_metadata')}::jsonb[], ${col('run_at')}::timestamptz[]
      ) as x(tenant, execution_id, job_id, rule_id, trigger_type, trigger_key, trigger_data, actions, actions_total, depth, cause_rule_ids, created_by, log_id, log_message, log_metadata, run_at)
    ), ins as (
      insert into automation_executions (tenant, execution_id, rule_id, trigger_type, trigger_key, trigger_data, actions, actions_total, depth, cause_rule_ids, created_by)
      select tenant, execution_id, rule_id, trigger_type, trigger_key, trigger_data, actions, actions_total, depth, cause_rule_ids::uuid[], created_by from input
      on conflict (tenant, rule_id, trigger_key) do nothing
      returning tenant, execution_id, rule_id, trigger_key
    ), queued as (
      insert into jobs (tenant, job_id, name, payload, run_at)
      select i.tenant, i.job_id, ${EXECUTE_JOB}, jsonb_build_object('execution_id', i.execution_id), coalesce(i.run_at, now())
      from input i join ins on ins.tenant = i.tenant and ins.execution_id = i.execution_id
      returning job_id
    ), logged as (
      insert into automation_execution_logs (tenant, log_id, execution_id, level, message, metadata)
      select i.tenant, i.log_id, i.execution_id, 'info', i.log_message, i.log_metadata
      from input i join ins on ins.tenant = i.tenant and ins.execution_id = i.execution_id
      returning log_id
    )
    select ins.tenant, ins.execution_id, ins.rule_id, ins.trigger_key, (select count(*) from queued) as queued, (select count(*) from logged) as logged from ins`.execute(trx);
  if (inserted.length > 0) notifyAfterCommit(trx, JOBS_CHANNEL);
  const order = new Map(rows.map((r, i) => [r.execution_id, i]));
  return inserted
    .map((r) => ({ tenant: r.tenant, execution_id: r.execution_id, rule_id: r.rule_id, trigger_key: r.trigger_key }))
    .sort((a, b) => order.get(a.execution_id)! - order.get(b.execution_id)!);
}

/**
 * Starts one execution (see startExecutions): returns its id, new or — for a trigger key the rule already
 * ran for — the existing one.
 */
export async function startExecution(trx: Transaction<DB>, input: StartExecutionInput): Promise<StartedExecution> {
  const [created] = await startExecutions(trx, [input]);
  if (created) return { execution_id: created.execution_id, created: true };
  const existing = await trx
    .selectFrom('automation_executions')
    .select('execution_id')
    .where('tenant', '=', input.tenant)
    .where('rule_id', '=', input.rule.rule_id)
    .where('trigger_key', '=', input.triggerKey)
    .executeTakeFirstOrThrow();
  return { execution_id: existing.execution_id, created: false };
}
