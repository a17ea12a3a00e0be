import { performance } from 'node:perf_hooks';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, RuleCondition } from '../../../platform/db/schema.automation.ts';
import { withEventCause, type EventCause } from '../../../platform/events/cause.ts';
import { emitMany } from '../../../platform/events/outbox.ts';
import { newId } from '../../../platform/ids.ts';
import { executionEvent } from '../automation.events.ts';
import type { ActionDefinition, ActionRunner, TriggerEnvelope } from '../automation.types.ts';
import { executionText, type OutcomePayload } from './execution-text.ts';
import { readsCurrent } from './paths.ts';
import { fillPlaceholders } from './placeholders.ts';

/**
 * The batch path of `automation.execute` jobs claimed together. Executions whose actions are all
 * transactional run in one transaction — each inside a savepoint once one of them has failed (see run) — and their steps, outcomes, logs, rules'
 * last runs and completion events are written in bulk at its end: a batch costs one commit, where the
 * per-execution path (runner.ts) costs three per execution. It is exactly once like that path: the batch
 * commits whole or not at all (a crashed worker's jobs are claimed again after their lease), and the
 * executions are locked and re-checked as pending inside it.
 *
 * Only the plain case runs here. Everything else is left to the per-execution path, which has the retries,
 * backoff, continue_on_error, timeouts and failure records: an execution that is not pending (resumed,
 * retried, finished), one with an external or unknown action, one whose rule is at its concurrency limit
 * (the rule rows are locked while their running executions are counted, as that path does; a batch runs a
 * rule's executions one after another, so it adds one to the count), one whose owner is gone or lacks a
 * permission, one whose rule checks conditions on current.* as it starts, and one with any action that fails — its savepoint is rolled back first, so it left nothing.
 */

export interface FastPathDeps {
  db: Kysely<DB>;
  runners: Readonly<Record<string, ActionRunner>>;
  definitionOf: (type: string) => ActionDefinition | undefined;
  ownerOf: (tenant: string, userId: string | null, ruleId: string) => Promise<Actor | undefined>;
  now: () => Date;
}

export interface BatchItem {
  tenant: string;
  executionId: string;
}

interface Candidate {
  tenant: string;
  execution_id: string;
  rule_id: string;
  rule_name: string;
  created_by: string | null;
  trigger_type: string;
  trigger_key: string;
  trigger_data: TriggerEnvelope;
  conditions: RuleCondition[];
  actions: RuleAction[];
  depth: number;
  cause_rule_ids: string[];
}

interface StepDone {
  index: number;
  type: string;
  startedAt: Date;
  completedAt: Date;
  ms: number;
  result: Record<string, unknown>;
}

interface Ran {
  execution: Candidate;
  startedAt: Date;
  completedAt: Date;
  steps: StepDone[];
}

const DEFAULT_ACTION_TIMEOUT_S = 30;
const SAVEPOINT = 'automation_execution';

/** An action's attempt that failed in a batch: it counts against the step's retry_attempts. */
class AttemptFailed extends Error {
  constructor(readonly index: number, readonly type: string, readonly startedAt: Date, readonly ms: number, cause: unknown) {
    super(cause instanceof Error ? cause.message.slice(0, 2000) : String(cause).slice(0, 2000));
  }
}

interface Failed {
  execution: Candidate;
  attempt: AttemptFailed;
}

/** Out of an unguarded batch: one execution failed, so the batch is rolled back and runs again guarded. */
class FirstFailure extends Error {
  constructor(readonly failed: Failed) {
    super(failed.attempt.message);
  }
}

const key = (tenant: string, id: string) => `${tenant}:${id}`;

/** The cause of what an execution's actions emit (and of its outcome event): its chain plus its rule, one deeper. */
const causeOf = (e: Candidate): EventCause => ({ execution_id: e.execution_id, rule_ids: [...e.cause_rule_ids, e.rule_id], depth: e.depth + 1 });

export function createFastPath(deps: FastPathDeps) {
  const { db, now } = deps;

  /**
   * Whether the execution may run here: every action transactional and allowed to its owner, and no
   * condition left to check as it starts (current.*, which the per-execution path reads).
   */
  function plain(execution: Candidate, owner: Actor | undefined): owner is Actor {
    if (!owner || (execution.trigger_type === 'event' && execution.conditions.some(readsCurrent))) return false;
    return execution.actions.every((action) => {
      const definition = deps.definitionOf(action.type);
      return definition?.transactional === true && deps.runners[action.type] !== undefined && definition.permissions.every((p) => owner.permissions.has(p));
    });
  }

  /** Runs one execution's actions in `trx` (inside the caller's savepoint); throws on the first failure. */
  async function runActions(trx: Transaction<DB>, execution: Candidate, owner: Actor): Promise<StepDone[]> {
    const cause = causeOf(execution);
    const steps: StepDone[] = [];
    for (const [index, action] of execution.actions.entries()) {
      const config = fillPlaceholders(action.config ?? {}, execution.trigger_data);
      const timeoutS = Math.max(1, action.timeout_seconds || DEFAULT_ACTION_TIMEOUT_S);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutS * 1000);
      const startedAt = now();
      const t0 = performance.now();
      try {
        const result = await withEventCause(cause, () => deps.runners[action.type]!({
          actor: owner, executionId: execution.execution_id, ruleId: execution.rule_id, actionIndex: index,
          idempotencyKey: `${execution.execution_id}:${index}`, signal: controller.signal, signingSecret: '',
        }, config, trx));
        if (controller.signal.aborted) throw new Error(`${action.type} timed out after ${timeoutS} s (rolled back)`);
        steps.push({ index, type: action.type, startedAt, completedAt: now(), ms: Math.round(performance.now() - t0), result: result ?? {} });
      } catch (err) {
        throw new AttemptFailed(index, action.type, startedAt, Math.round(performance.now() - t0), err);
      } finally {
        clearTimeout(timer);
      }
    }
    return steps;
  }

  /** Runs what it can of `items`; returns the keys (`tenant:execution_id`) of the executions it completed. */
  async function run(items: readonly BatchItem[]): Promise<Set<string>> {
    const unique = [...new Map(items.map((i) => [key(i.tenant, i.executionId), i])).values()];
    if (unique.length === 0) return new Set();
    // The executions are found by their keys alone and their status checked here: with `status = 'pending'`
    // in the query, a generic plan without fresh statistics scanned the (tenant, status) index for every key —
    // every pending execution of the tenant per key, 47 ms a batch in a backlog of 10,000.
    const { rows: found } = await sql<Candidate & { status: string }>`
      select e.tenant, e.execution_id, e.status, e.rule_id, r.name as rule_name, r.created_by, e.trigger_type, e.trigger_key,
        e.trigger_data, r.conditions, e.actions, e.depth, e.cause_rule_ids
      from automation_executions e
      join unnest(${unique.map((i) => i.tenant)}::uuid[], ${unique.map((i) => i.executionId)}::uuid[]) as i(tenant, execution_id)
        on e.tenant = i.tenant and e.execution_id = i.execution_id
      join automation_rules r on r.tenant = e.tenant and r.rule_id = e.rule_id`.execute(db);
    const owners = new Map<string, Actor>();
    const candidates: Candidate[] = [];
    for (const { status, ...execution } of found) {
      if (status !== 'pending') continue;
      const owner = await deps.ownerOf(execution.tenant, execution.created_by, execution.rule_id);
      if (!plain(execution, owner)) continue;
      owners.set(key(execution.tenant, execution.execution_id), owner);
      candidates.push(execution);
    }
    if (candidates.length === 0) return new Set();

    // Optimistic first: no savepoint per execution (two round trips each). When one fails, its attempt is
    // kept, the transaction rolled back whole, and the batch runs again with a savepoint per execution.
    let ran: Ran[];
    try {
      ran = await runBatch(candidates, owners, undefined);
    } catch (err) {
      if (!(err instanceof FirstFailure)) throw err;
      ran = await runBatch(candidates, owners, err.failed);
    }
    return new Set(ran.map((r) => key(r.execution.tenant, r.execution.execution_id)));
  }

  /**
   * One batch transaction. Without `firstFailure` it is unguarded: an action that fails aborts it (FirstFailure).
   * With it, each execution runs inside a savepoint, and the execution that failed before is not run again:
   * its attempt is recorded as it was.
   */
  async function runBatch(candidates: readonly Candidate[], owners: ReadonlyMap<string, Actor>, firstFailure: Failed | undefined): Promise<Ran[]> {
    const guarded = firstFailure !== undefined;
    return withTransaction(db, async (trx) => {
      // Locked by key, then re-checked as pending (by key for the same reason as above).
      const { rows: locked } = await sql<{ tenant: string; execution_id: string; status: string }>`
        select e.tenant, e.execution_id, e.status from automation_executions e
        join unnest(${candidates.map((c) => c.tenant)}::uuid[], ${candidates.map((c) => c.execution_id)}::uuid[]) as i(tenant, execution_id)
          on e.tenant = i.tenant and e.execution_id = i.execution_id
        order by e.tenant, e.execution_id
        for no key update of e`.execute(trx);
      const rules = [...new Map(candidates.map((c) => [key(c.tenant, c.rule_id), c])).values()];
      const { rows: limits } = await sql<{ tenant: string; rule_id: string; free: boolean }>`
        select r.tenant, r.rule_id,
          (select count(*) from automation_executions x where x.tenant = r.tenant and x.rule_id = r.rule_id and x.status = 'running') < r.max_concurrent_executions as free
        from automation_rules r
        join unnest(${rules.map((c) => c.tenant)}::uuid[], ${rules.map((c) => c.rule_id)}::uuid[]) as i(tenant, rule_id)
          on r.tenant = i.tenant and r.rule_id = i.rule_id
        order by r.tenant, r.rule_id
        for no key update of r`.execute(trx);
      const lockedKeys = new Set(locked.filter((l) => l.status === 'pending').map((l) => key(l.tenant, l.execution_id)));
      const freeRules = new Set(limits.filter((l) => l.free).map((l) => key(l.tenant, l.rule_id)));
      const done: Ran[] = [];
      const failed: Failed[] = [];
      for (const execution of candidates) {
        if (!lockedKeys.has(key(execution.tenant, execution.execution_id)) || !freeRules.has(key(execution.tenant, execution.rule_id))) continue;
        if (firstFailure?.execution === execution) {
          failed.push(firstFailure);
          continue;
        }
        const startedAt = now();
        if (guarded) await sql.raw(`savepoint ${SAVEPOINT}`).execute(trx);
        try {
          const steps = await runActions(trx, execution, owners.get(key(execution.tenant, execution.execution_id))!);
          if (guarded) await sql.raw(`release savepoint ${SAVEPOINT}`).execute(trx);
          done.push({ execution, startedAt, completedAt: now(), steps });
        } catch (err) {
          if (!guarded) throw err instanceof AttemptFailed ? new FirstFailure({ execution, attempt: err }) : err;
          // Left to the per-execution path, which records the failure (and retries it as the rule says).
          await sql.raw(`rollback to savepoint ${SAVEPOINT}`).execute(trx);
          if (err instanceof AttemptFailed) failed.push({ execution, attempt: err });
        }
      }
      await record(trx, done);
      await recordAttempts(trx, failed);
      return done;
    });
  }

  /**
   * The batch's outcomes in bulk: executions, steps, logs and the rules' last runs in one statement (rows as
   * arrays: a 200-row multi-VALUES insert of the logs cost more to build and bind than to write), then the
   * completion events.
   */
  async function record(trx: Transaction<DB>, done: readonly Ran[]): Promise<void> {
    if (done.length === 0) return;
    const at = now().toISOString();
    const durationOf = (r: Ran) => Math.max(0, r.completedAt.getTime() - r.startedAt.getTime());
    const col = <T>(f: (r: Ran) => T) => done.map(f);
    const steps = done.flatMap((r) => r.steps.map((s) => ({ execution: r.execution, step: s })));
    const stepCol = <T>(f: (x: (typeof steps)[number]) => T) => steps.map(f);
    const logs = done.flatMap((r) => {
      const { execution } = r;
      const line = (loggedAt: Date, message: string, actionIndex: number | null, metadata: Record<string, unknown> | null) => ({
        execution, loggedAt: loggedAt.toISOString(), message, actionIndex, metadata: metadata === null ? null : JSON.stringify(metadata),
      });
      return [
        line(r.startedAt, executionText.started(execution.trigger_type, execution.actions.length), null, { trigger_key: execution.trigger_key, depth: execution.depth }),
        ...r.steps.flatMap((s) => [
          line(s.startedAt, executionText.actionStarted(s.index, s.type), s.index, null),
          line(s.completedAt, executionText.actionCompleted(s.index, s.type, s.ms), s.index, { duration_ms: s.ms, result: s.result }),
        ]),
        line(r.completedAt, executionText.finished('completed', durationOf(r), r.steps.length, 0), null, null),
      ];
    });
    const logCol = <T>(f: (x: (typeof logs)[number]) => T) => logs.map(f);
    const lastRuns = [...new Map(done.map((r) => [key(r.execution.tenant, r.execution.rule_id), r.execution])).values()];
    await sql`
      with executions as (
        update automation_executions e set status = 'completed', started_at = x.started_at, completed_at = x.completed_at,
          duration_ms = x.duration_ms, attempts = e.attempts + 1, actions_successful = x.successful, actions_failed = 0,
          failed_action_index = null, error_message = null, updated_at = ${at}::timestamptz
        from unnest(${col((r) => r.execution.tenant)}::uuid[], ${col((r) => r.execution.execution_id)}::uuid[],
          ${col((r) => r.startedAt.toISOString())}::timestamptz[], ${col((r) => r.completedAt.toISOString())}::timestamptz[],
          ${col(durationOf)}::int[], ${col((r) => r.steps.length)}::int[]) as x(tenant, execution_id, started_at, completed_at, duration_ms, successful)
        where e.tenant = x.tenant and e.execution_id = x.execution_id
      ), steps as (
        insert into automation_execution_steps (tenant, execution_id, action_index, action_type, status, attempts, started_at, completed_at, duration_ms, result)
        select s.tenant, s.execution_id, s.action_index, s.action_type, 'completed', 1, s.started_at, s.completed_at, s.duration_ms, s.result
        from unnest(${stepCol((x) => x.execution.tenant)}::uuid[], ${stepCol((x) => x.execution.execution_id)}::uuid[], ${stepCol((x) => x.step.index)}::int[],
          ${stepCol((x) => x.step.type)}::text[], ${stepCol((x) => x.step.startedAt.toISOString())}::timestamptz[],
          ${stepCol((x) => x.step.completedAt.toISOString())}::timestamptz[], ${stepCol((x) => x.step.ms)}::int[], ${stepCol((x) => JSON.stringify(x.step.result))}::jsonb[])
          as s(tenant, execution_id, action_index, action_type, started_at, completed_at, duration_ms, result)
      ), logs as (
        insert into automation_execution_logs (tenant, log_id, execution_id, logged_at, level, message, action_index, metadata)
        select l.tenant, l.log_id, l.execution_id, l.logged_at, 'info', l.message, l.action_index, l.metadata
        from unnest(${logCol((x) => x.execution.tenant)}::uuid[], ${logCol(() => newId())}::uuid[], ${logCol((x) => x.execution.execution_id)}::uuid[],
          ${logCol((x) => x.loggedAt)}::timestamptz[], ${logCol((x) => x.message)}::text[], ${logCol((x) => x.actionIndex)}::int[], ${logCol((x) => x.metadata)}::jsonb[])
          as l(tenant, log_id, execution_id, logged_at, message, action_index, metadata)
      ), rules as (
        update automation_rules r set last_run_at = ${at}::timestamptz, last_error = null
        from unnest(${lastRuns.map((e) => e.tenant)}::uuid[], ${lastRuns.map((e) => e.rule_id)}::uuid[]) as x(tenant, rule_id)
        where r.tenant = x.tenant and r.rule_id = x.rule_id
      )
      select 1`.execute(trx);
    await emitMany(trx, done.map((r) => {
      const { execution } = r;
      const outcome: OutcomePayload = {
        rule_id: execution.rule_id, rule_name: execution.rule_name, status: 'completed', trigger_type: execution.trigger_type,
        actions_total: execution.actions.length, actions_successful: r.steps.length, actions_failed: 0,
        failed_action_index: null, error_message: null, duration_ms: durationOf(r),
      };
      // Caused by the execution, as its actions' events are: a rule on automation.execution.* is not re-triggered by it.
      return { ...executionEvent(execution.tenant, 'completed', execution.execution_id, outcome), cause: causeOf(execution) };
    }));
  }

  /**
   * The failed attempts, for the per-execution path to take over: the execution's steps (still pending), the
   * failed one with its attempt counted and its error, and a log line saying what happened.
   */
  async function recordAttempts(trx: Transaction<DB>, failed: readonly Failed[]): Promise<void> {
    if (failed.length === 0) return;
    await trx.insertInto('automation_execution_steps').values(failed.flatMap(({ execution, attempt }) => execution.actions.map((action, index) => ({
      tenant: execution.tenant, execution_id: execution.execution_id, action_index: index, action_type: action.type,
      ...(index === attempt.index ? { attempts: 1, started_at: attempt.startedAt, error_message: attempt.message } : {}),
    })))).execute();
    await trx.insertInto('automation_execution_logs').values(failed.map(({ execution, attempt }) => ({
      tenant: execution.tenant, log_id: newId(), execution_id: execution.execution_id, logged_at: now(), level: 'warn' as const, action_index: attempt.index,
      message: executionText.batchAttemptFailed(attempt.index, attempt.type, attempt.ms, attempt.message),
      metadata: JSON.stringify({ attempt: 1, duration_ms: attempt.ms }),
    }))).execute();
  }

  return { run };
}
