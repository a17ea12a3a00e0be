import { sql, type Kysely } from 'kysely';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { emitMany } from '../../../platform/events/outbox.ts';
import { newId } from '../../../platform/ids.ts';
import type { RunSchedule } from '../../../platform/jobs/types.ts';
import { executionEvent } from '../automation.events.ts';
import { EXECUTE_JOB } from './execute.ts';
import type { OutcomePayload } from './execution-text.ts';

/**
 * Executions the worker gave up on. An execution's job is retried with backoff and, after its last
 * attempt (the handler kept throwing: a broken database connection, a bug), is `dead`; its execution would
 * stay pending or running for ever. Every five minutes this sweep fails the executions left unfinished with
 * no live job for STALE_MINUTES: the unfinished steps are skipped, the error names the dead job's last
 * error, a log line says what happened, and `automation.execution.failed` is emitted — so the execution can
 * be seen, alerted on and retried (`POST …/executions/{id}/retry`) like any failed one. An execution held
 * back by its rule's concurrency limit, or waiting in a backlog, has a pending job and is left alone.
 */

export const SWEEP_SCHEDULE = 'automation-execution-sweep';
const STALE_MINUTES = 15;
const SWEEP_BATCH = 500;

interface Abandoned {
  tenant: string;
  execution_id: string;
  rule_id: string;
  rule_name: string;
  trigger_type: string;
  depth: number;
  cause_rule_ids: string[];
  actions_total: number;
  started_at: Date | null;
  last_error: string | null;
}

/** One sweep; returns how many executions it failed. */
export async function sweepAbandonedExecutions(db: Kysely<DB>, now: () => Date = () => new Date()): Promise<number> {
  let swept = 0;
  for (;;) {
    const at = now();
    const count = await withTransaction(db, async (trx) => {
      const { rows } = await sql<Abandoned>`
        select e.tenant, e.execution_id, e.rule_id, r.name as rule_name, e.trigger_type, e.depth, e.cause_rule_ids, e.actions_total, e.started_at,
          (select j.last_error from jobs j where j.tenant = e.tenant and j.name = ${EXECUTE_JOB} and j.status = 'dead'
             and j.payload->>'execution_id' = e.execution_id::text order by j.finished_at desc limit 1) as last_error
        from automation_executions e
        join automation_rules r on r.tenant = e.tenant and r.rule_id = e.rule_id
        where e.status in ('pending', 'running') and e.updated_at < ${new Date(at.getTime() - STALE_MINUTES * 60_000)}::timestamptz
          and not exists (
            select 1 from jobs j where j.tenant = e.tenant and j.name = ${EXECUTE_JOB} and j.status in ('pending', 'running')
              and j.payload->>'execution_id' = e.execution_id::text)
        limit ${SWEEP_BATCH}
        for update of e skip locked`.execute(trx);
      if (rows.length === 0) return 0;
      const message = (r: Abandoned) => `The worker gave up on this execution: its job failed on every attempt${r.last_error ? ` (last error: ${r.last_error})` : ''}`.slice(0, 2000);
      const col = <T>(f: (r: Abandoned) => T) => rows.map(f);
      await sql`
        update automation_execution_steps s set status = 'skipped'
        from unnest(${col((r) => r.tenant)}::uuid[], ${col((r) => r.execution_id)}::uuid[]) as x(tenant, execution_id)
        where s.tenant = x.tenant and s.execution_id = x.execution_id and s.status in ('pending', 'running')`.execute(trx);
      const { rows: finished } = await sql<{ execution_id: string; actions_successful: number; duration_ms: number | null }>`
        update automation_executions e set status = 'failed', completed_at = ${at}::timestamptz, error_message = x.message,
          duration_ms = case when e.started_at is null then null else greatest(0, (extract(epoch from (${at}::timestamptz - e.started_at)) * 1000)::int) end,
          actions_successful = (select count(*) from automation_execution_steps s where s.tenant = e.tenant and s.execution_id = e.execution_id and s.status = 'completed'),
          actions_failed = 0, updated_at = ${at}::timestamptz
        from unnest(${col((r) => r.tenant)}::uuid[], ${col((r) => r.execution_id)}::uuid[], ${col(message)}::text[]) as x(tenant, execution_id, message)
        where e.tenant = x.tenant and e.execution_id = x.execution_id
        returning e.execution_id, e.actions_successful, e.duration_ms`.execute(trx);
      await trx.insertInto('automation_execution_logs').values(rows.map((r) => ({
        tenant: r.tenant, log_id: newId(), execution_id: r.execution_id, logged_at: at, level: 'error' as const, message: message(r), action_index: null,
        metadata: JSON.stringify({ swept_after_minutes: STALE_MINUTES }),
      }))).execute();
      const byId = new Map(finished.map((f) => [f.execution_id, f]));
      await emitMany(trx, rows.map((r) => {
        const outcome: OutcomePayload = {
          rule_id: r.rule_id, rule_name: r.rule_name, status: 'failed', trigger_type: r.trigger_type, actions_total: r.actions_total,
          actions_successful: byId.get(r.execution_id)?.actions_successful ?? 0, actions_failed: 0, failed_action_index: null,
          error_message: message(r), duration_ms: byId.get(r.execution_id)?.duration_ms ?? 0,
        };
        // Caused by the execution, as its own outcome event would be.
        return { ...executionEvent(r.tenant, 'failed', r.execution_id, outcome), cause: { execution_id: r.execution_id, rule_ids: [...r.cause_rule_ids, r.rule_id], depth: r.depth + 1 } };
      }));
      return rows.length;
    });
    swept += count;
    if (count < SWEEP_BATCH) return swept;
  }
}

export function automationExecutionSweep(db: Kysely<DB>): RunSchedule {
  return { name: SWEEP_SCHEDULE, cron: '*/5 * * * *', run: async () => void (await sweepAbandonedExecutions(db)) };
}
