import { performance } from 'node:perf_hooks';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { loadOwnerActor } from '../../../platform/auth/owner-actor.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ExecutionStatus, LogLevel, RuleAction } from '../../../platform/db/schema.automation.ts';
import { withEventCause, type EventCause } from '../../../platform/events/cause.ts';
import type { WorkerLog } from '../../../platform/events/worker.ts';
import { newId } from '../../../platform/ids.ts';
import { enqueue } from '../../../platform/jobs/enqueue.ts';
import type { BatchJob, JobDefinition } from '../../../platform/jobs/types.ts';
import { emitExecutionEvent } from '../automation.events.ts';
import type { ActionDefinition, ActionRunner, TriggerEnvelope } from '../automation.types.ts';
import { resetUnfinishedSteps } from '../executions/executions.repo.ts';
import { conditionsLog, evaluateConditions } from './conditions.ts';
import { loadCurrent } from './current.ts';
import { EXECUTE_JOB } from './execute.ts';
import { executionText, type OutcomePayload } from './execution-text.ts';
import { createFastPath } from './fast-path.ts';
import { readsCurrent } from './paths.ts';
import { fillPlaceholders, PlaceholderError } from './placeholders.ts';

/**
 * The `automation.execute` job: runs one execution's actions in order, at least once and exactly once per
 * completed step.
 *
 * - **Concurrency**: the execution's row and then its rule's row are locked while the job counts the rule's
 *   running executions; at `max_concurrent_executions` a pending execution is not started but re-enqueued a
 *   moment later. The lock makes the count and the start atomic across workers; it is `for no key update`, so
 *   the inserts that only reference the rule (new executions) are not held up by it.
 * - **Steps**: one row per action, created when the execution starts. A *transactional* action runs in one
 *   transaction with the updates that mark its step running and then completed (the first locks the step
 *   row and skips a step already completed, so two runs of the same job never both apply it): a crash keeps
 *   both or neither, and a completed step is never run again when the job runs again (a crashed worker's
 *   job is claimed after its lease). The last step's transaction also records the execution's outcome. An
 *   *external* action (e-mail, HTTP) is marked running, run outside any transaction, then marked completed:
 *   a crash in between repeats it, with the same idempotency key (`<execution_id>:<index>`).
 * - **Cause**: every action runs inside `withEventCause({execution_id, rule_ids: chain + rule, depth + 1})`,
 *   so the events it makes never re-trigger this rule (or any rule of its chain) and chains stop at a depth.
 * - **Failures**: `timeout_seconds` (default 30) bounds an attempt — an external action is abandoned when
 *   it elapses (its AbortSignal fires); a transactional one is told through the signal and rolled back if it
 *   returns late (it is not abandoned mid-transaction, whose connection it holds). `retry_attempts` retries
 *   with exponential backoff (1 s, 2 s, … capped at 30 s) inside the job. A placeholder without a value, an
 *   unknown action type or a permission the owner lacks fails the step at once (retrying cannot help). A
 *   failed step with `continue_on_error` is logged and the next runs; otherwise the execution stops as
 *   `failed` (remaining steps `skipped`). The whole run is bounded by `execution_timeout_minutes` from its
 *   start (status `timeout`).
 * - **Rule retries**: a rule with `retry_failed_executions` has a failed execution (not a timed-out one) run
 *   again — its steps not completed reset — after 1, 2 and 3 minutes (MAX_EXECUTION_RETRIES); the failure is
 *   final (status `failed`, the failed event) after that.
 * - **current.\***: an event rule whose conditions read `current` has them all checked again as the execution
 *   first starts, with the event's record as it is then (engine/current.ts); when they fail it is `skipped`.
 * - **Owner**: actions act as the rule's creator with their current permissions (read at most 5 s before); an
 *   owner who is gone or deactivated fails the execution, one who lost an action's permission fails that step.
 */

const DEFAULT_ACTION_TIMEOUT_S = 30;
/** Jobs the runner hands over at once (the fast path's transaction), and how many of the rest run at once. */
const BATCH_SIZE = 50;
const SLOW_PATH_PARALLEL = 10;
const OWNER_CACHE_MS = 5000;
/** How many times a failed execution of a rule with retry_failed_executions is run again. */
export const MAX_EXECUTION_RETRIES = 3;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_LOG_MESSAGE = 2000;

export interface RunnerDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  runners: Readonly<Record<string, ActionRunner>>;
  definitionOf: (type: string) => ActionDefinition | undefined;
  log?: Pick<WorkerLog, 'error'>;
  /** Delay before an execution held back by its rule's concurrency limit is tried again (default 1 s + jitter). */
  concurrencyDelayMs?: () => number;
  /** Delay before retry n (1-based) of a failed action attempt. */
  retryBackoffMs?: (attempt: number) => number;
  /** Delay before run n + 1 of a failed execution whose rule has retry_failed_executions (default n minutes). */
  executionRetryDelayMs?: (run: number) => number;
  /** The clock of deadlines and timestamps (tests move it). */
  now?: () => Date;
}

interface LogLine {
  level: LogLevel;
  message: string;
  action_index: number | null;
  metadata: Record<string, unknown> | null;
  logged_at: Date;
}

class StepFailure extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

class ExecutionTimeout extends Error {}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, MAX_LOG_MESSAGE);

export const defaultRetryBackoff = (attempt: number): number => Math.min(30_000, 1000 * 2 ** (attempt - 1));

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

/** Races `fn` against `ms`; the signal fires when the time is up (the late promise's outcome is ignored). */
async function withTimeout<T>(ms: number, label: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new StepFailure(`${label} timed out after ${Math.round(ms / 100) / 10} s`, true);
      controller.abort(err);
      reject(err);
    }, ms);
  });
  const work = fn(controller.signal);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function createExecuteJob(deps: RunnerDeps): JobDefinition {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const backoff = deps.retryBackoffMs ?? defaultRetryBackoff;
  const executionRetryDelay = deps.executionRetryDelayMs ?? ((run: number) => run * 60_000);
  const concurrencyDelay = deps.concurrencyDelayMs ?? (() => 1000 + Math.floor(Math.random() * 500));
  // Owners with their permissions, kept a few seconds: a busy rule does not re-read its owner's roles for
  // every execution; a permission removed (or an owner deactivated) applies within OWNER_CACHE_MS.
  const owners = new Map<string, { at: number; actor: Actor | undefined }>();
  async function ownerOf(tenant: string, userId: string | null, ruleId: string): Promise<Actor | undefined> {
    if (userId === null) return undefined;
    const key = `${tenant}:${userId}`;
    const t = Date.now();
    let hit = owners.get(key);
    if (!hit || t - hit.at > OWNER_CACHE_MS) {
      hit = { at: t, actor: await loadOwnerActor(db, tenant, userId, ruleId) };
      if (owners.size >= 10_000) owners.clear();
      owners.set(key, hit);
    }
    return hit.actor && { ...hit.actor, apiKeyId: ruleId };
  }

  async function handle(payload: Record<string, unknown>, ctx: { tenant: string }): Promise<void> {
    const executionId = String(payload.execution_id ?? '');
    const tenant = ctx.tenant;
    if (!UUID_RE.test(executionId)) return;
    const logs: LogLine[] = [];
    const log = (level: LogLevel, message: string, actionIndex: number | null = null, metadata: Record<string, unknown> | null = null) => {
      logs.push({ level, message: message.slice(0, MAX_LOG_MESSAGE), action_index: actionIndex, metadata, logged_at: now() });
    };
    /** Runs fn in a transaction that also writes the buffered log lines (kept for the next one if it rolls back). */
    const inTransaction = async <T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> => {
      const before = logs.length;
      return withTransaction(db, async (trx) => {
        const result = await fn(trx);
        const batch = logs.slice(0);
        if (batch.length > 0) {
          await trx.insertInto('automation_execution_logs').values(batch.map((l) => ({
            tenant, log_id: newId(), execution_id: executionId, logged_at: l.logged_at, level: l.level, message: l.message,
            action_index: l.action_index, metadata: l.metadata === null ? null : JSON.stringify(l.metadata),
          }))).execute();
        }
        return result;
      }).then((result) => {
        logs.splice(0);
        return result;
      }, (err: unknown) => {
        logs.splice(before);
        throw err;
      });
    };

    // 1. Start (or resume) under the rule's concurrency limit. (Its log line is written with the next step's.)
    const started = await withTransaction(db, async (trx) => {
      const execution = await trx.selectFrom('automation_executions').selectAll()
        .where('tenant', '=', tenant).where('execution_id', '=', executionId).forNoKeyUpdate().executeTakeFirst();
      if (!execution || (execution.status !== 'pending' && execution.status !== 'running')) return undefined;
      const rule = await trx.selectFrom('automation_rules')
        .select(['rule_id', 'name', 'created_by', 'signing_secret_enc', 'max_concurrent_executions', 'execution_timeout_minutes', 'retry_failed_executions', 'conditions', 'condition_logic'])
        .where('tenant', '=', tenant).where('rule_id', '=', execution.rule_id).forNoKeyUpdate().executeTakeFirst();
      if (!rule) return undefined;
      if (execution.status === 'pending') {
        const running = await trx.selectFrom('automation_executions').select((eb) => eb.fn.countAll<string | number>().as('n'))
          .where('tenant', '=', tenant).where('rule_id', '=', rule.rule_id).where('status', '=', 'running').executeTakeFirstOrThrow();
        if (Number(running.n) >= rule.max_concurrent_executions) {
          await enqueue(trx, { name: EXECUTE_JOB, tenant, payload: { execution_id: executionId }, runAt: new Date(now().getTime() + concurrencyDelay()) });
          return 'deferred' as const;
        }
      }
      const at = now();
      const startedAt = execution.started_at ?? at;
      await trx.updateTable('automation_executions')
        .set({ status: 'running', started_at: startedAt, attempts: sql<number>`attempts + 1`, updated_at: at })
        .where('tenant', '=', tenant).where('execution_id', '=', executionId).execute();
      const actions = execution.actions as RuleAction[];
      if (actions.length > 0) {
        await trx.insertInto('automation_execution_steps')
          .values(actions.map((a, i) => ({ tenant, execution_id: executionId, action_index: i, action_type: a.type })))
          .onConflict((oc) => oc.columns(['tenant', 'execution_id', 'action_index']).doNothing())
          .execute();
      }
      if (execution.status === 'running') log('warn', `Execution resumed (run ${execution.attempts + 1}); completed steps are not repeated`);
      else log('info', executionText.started(execution.trigger_type, actions.length), null, { trigger_key: execution.trigger_key, depth: execution.depth });
      return { execution: { ...execution, started_at: startedAt }, rule, actions };
    });
    if (started === undefined || started === 'deferred') return;
    const { execution, rule, actions } = started;

    const cause: EventCause = { execution_id: executionId, rule_ids: [...execution.cause_rule_ids, rule.rule_id], depth: execution.depth + 1 };
    const deadline = execution.started_at.getTime() + rule.execution_timeout_minutes * 60_000;
    const envelope = execution.trigger_data as unknown as TriggerEnvelope;

    // 3. Finish: counts, status, the rule's last run, the outcome event (caused by this execution, so a rule
    // listening to automation.execution.* is not re-triggered by its own outcome).
    const finish = async (status: Extract<ExecutionStatus, 'completed' | 'failed' | 'timeout'>, failure?: { index: number | null; message: string }) => {
      const run = execution.attempts + 1;
      if (status === 'failed' && failure && rule.retry_failed_executions && run <= MAX_EXECUTION_RETRIES) {
        // The rule asks for failed executions to be retried: the steps not completed run again later.
        const delay = executionRetryDelay(run);
        await inTransaction(async (trx) => {
          await resetUnfinishedSteps(trx, tenant, executionId);
          const updated = await trx.updateTable('automation_executions')
            .set({ status: 'pending', started_at: null, failed_action_index: null, error_message: failure.message, updated_at: now() })
            .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('status', '=', 'running')
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) === 0) return;
          await enqueue(trx, { name: EXECUTE_JOB, tenant, payload: { execution_id: executionId }, runAt: new Date(now().getTime() + delay) });
          log('warn', `Execution failed (${failure.message}); retrying in ${Math.round(delay / 1000)} s (retry ${run} of ${MAX_EXECUTION_RETRIES}, retry_failed_executions)`);
        });
        return;
      }
      await inTransaction((trx) => finishIn(trx, status, failure));
    };

    /** Records the outcome in `trx` (nothing if another run of the job already finished the execution). */
    async function finishIn(trx: Transaction<DB>, status: Extract<ExecutionStatus, 'completed' | 'failed' | 'timeout'>, failure?: { index: number | null; message: string }): Promise<void> {
      if (status !== 'completed') {
        await trx.updateTable('automation_execution_steps').set({ status: 'skipped' })
          .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('status', 'in', ['pending', 'running']).execute();
      }
      const at = now();
      const durationMs = Math.max(0, at.getTime() - execution.started_at.getTime());
      const message = failure?.message ?? null;
      // One statement: the step counts, the execution's outcome, and the rule's last run.
      const { rows: [updated] } = await sql<{ actions_successful: number; actions_failed: number }>`
        with counts as (
          select count(*) filter (where status = 'completed')::int as ok, count(*) filter (where status = 'failed')::int as bad
          from automation_execution_steps where tenant = ${tenant}::uuid and execution_id = ${executionId}::uuid
        ), done as (
          update automation_executions e set status = ${status}, completed_at = ${at}::timestamptz, duration_ms = ${durationMs}::int,
            actions_successful = counts.ok, actions_failed = counts.bad, failed_action_index = ${failure?.index ?? null}::int,
            error_message = ${message}::text, updated_at = ${at}::timestamptz
          from counts
          where e.tenant = ${tenant}::uuid and e.execution_id = ${executionId}::uuid and e.status = 'running'
          returning e.actions_successful, e.actions_failed
        ), touched as (
          update automation_rules set last_run_at = ${at}::timestamptz, last_error = ${message}::text
          where tenant = ${tenant}::uuid and rule_id = ${rule.rule_id}::uuid and exists (select 1 from done)
        )
        select actions_successful, actions_failed from done`.execute(trx);
      if (!updated) return;
      const successful = updated.actions_successful;
      const failed = updated.actions_failed;
      const outcome: OutcomePayload = {
        rule_id: rule.rule_id, rule_name: rule.name, status, trigger_type: execution.trigger_type,
        actions_total: actions.length, actions_successful: successful, actions_failed: failed,
        failed_action_index: failure?.index ?? null, error_message: message, duration_ms: durationMs,
      };
      await withEventCause(cause, () => emitExecutionEvent(trx, tenant, status === 'completed' ? 'completed' : 'failed', executionId, outcome));
      log(status === 'completed' ? 'info' : 'error', executionText.finished(status, durationMs, successful, failed));
    }

    // 2. The owner and the steps.
    const actor = await ownerOf(tenant, rule.created_by, rule.rule_id);
    if (!actor) {
      const message = 'The rule\'s owner is deactivated or deleted; its actions cannot run';
      log('error', message, null, { user_id: rule.created_by });
      await finish('failed', { index: null, message });
      return;
    }
    // Conditions on current.* (the event's record as it is now; engine/current.ts), checked once, as the
    // execution first starts: when they no longer hold, it is skipped without running an action.
    if (execution.attempts === 0 && execution.trigger_type === 'event' && rule.conditions.some(readsCurrent)) {
      const current = await loadCurrent(db, actor, String(envelope.trigger.aggregate_type ?? ''), String(envelope.trigger.aggregate_id ?? ''));
      const outcome = evaluateConditions(rule.conditions, rule.condition_logic, current === undefined ? envelope : { ...envelope, current });
      const { message, metadata } = conditionsLog(outcome.matched ? 'The conditions hold as it runs' : 'Skipped: the conditions no longer hold as it runs', outcome.results, rule.condition_logic);
      log('info', message, null, metadata);
      if (!outcome.matched) {
        await inTransaction(async (trx) => {
          const at = now();
          await trx.updateTable('automation_execution_steps').set({ status: 'skipped' })
            .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('status', 'in', ['pending', 'running']).execute();
          await trx.updateTable('automation_executions')
            .set({ status: 'skipped', completed_at: at, duration_ms: Math.max(0, at.getTime() - execution.started_at.getTime()), updated_at: at })
            .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('status', '=', 'running').execute();
        });
        return;
      }
    }
    let signingSecret = '';
    try {
      signingSecret = deps.secretBox.decrypt(rule.signing_secret_enc);
    } catch (err) {
      deps.log?.error({ err, rule_id: rule.rule_id }, 'automation rule signing secret cannot be decrypted');
    }

    const steps = await db.selectFrom('automation_execution_steps').select(['action_index', 'status', 'attempts', 'error_message'])
      .where('tenant', '=', tenant).where('execution_id', '=', executionId).orderBy('action_index').execute();
    const done = new Set(steps.filter((s) => s.status === 'completed').map((s) => s.action_index));
    // Attempts a step already finished count against its retry_attempts: a batch run's (fast-path.ts), or
    // those before a crash — except a running step's last, which the crash may have cut short.
    const earlier = new Map(steps.map((s) => [s.action_index, { attempts: s.status === 'running' ? Math.max(0, s.attempts - 1) : s.attempts, error: s.error_message }]));

    /** Set when the last step's transaction also recorded the outcome. */
    let finished = false;
    for (let index = 0; index < actions.length; index++) {
      if (done.has(index)) continue;
      const action = actions[index]!;
      try {
        finished = await runStep(index, action, actor, signingSecret);
      } catch (err) {
        if (err instanceof ExecutionTimeout) {
          const message = `The execution exceeded its timeout of ${rule.execution_timeout_minutes} minute${rule.execution_timeout_minutes === 1 ? '' : 's'}`;
          log('error', message, index);
          await markStep(index, { status: 'failed', error_message: message });
          await finish('timeout', { index, message });
          return;
        }
        const message = errorText(err);
        if (action.continue_on_error) {
          log('warn', `Action ${index} (${action.type}) failed; continuing (continue_on_error)`, index);
          continue;
        }
        await finish('failed', { index, message: `Action ${index} (${action.type}) failed: ${message}` });
        return;
      }
    }
    if (!finished) await finish('completed');

    async function markStep(index: number, set: { status: 'failed'; error_message: string }) {
      await inTransaction((trx) => trx.updateTable('automation_execution_steps')
        .set({ ...set, completed_at: now() })
        .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('action_index', '=', index).where('status', '<>', 'completed')
        .execute());
    }

    /**
     * Runs one step to completion (with its retries); throws its final failure (recorded on the step).
     * Returns true when the step was the last and its transaction also finished the execution.
     */
    async function runStep(index: number, action: RuleAction, owner: Actor, secret: string): Promise<boolean> {
      const fail = async (message: string) => {
        log('error', `Action ${index} (${action.type}) failed: ${message}`, index);
        await markStep(index, { status: 'failed', error_message: message });
        return new StepFailure(message, false);
      };
      const definition = deps.definitionOf(action.type);
      const runner = deps.runners[action.type];
      if (!definition || !runner) throw await fail(`unknown action type '${action.type}'`);
      const missing = definition.permissions.filter((p) => !owner.permissions.has(p));
      if (missing.length > 0) throw await fail(`the rule's owner lacks the permission ${missing.join(', ')} that ${action.type} needs`);
      let config: Record<string, unknown>;
      try {
        config = fillPlaceholders(action.config ?? {}, envelope);
      } catch (err) {
        if (err instanceof PlaceholderError) throw await fail(err.message);
        throw err;
      }
      const attempts = 1 + Math.max(0, Math.min(10, action.retry_attempts ?? 0));
      const before = earlier.get(index) ?? { attempts: 0, error: null };
      if (before.attempts >= attempts) throw await fail(before.error ?? 'no attempts left');
      const timeoutMs = Math.max(1, action.timeout_seconds || DEFAULT_ACTION_TIMEOUT_S) * 1000;
      for (let attempt = before.attempts + 1; ; attempt++) {
        const remaining = deadline - now().getTime();
        if (remaining <= 0) throw new ExecutionTimeout();
        const limit = Math.min(timeoutMs, remaining);
        const t0 = performance.now();
        const startedAt = now();
        const markRunning = (ex: Transaction<DB> | Kysely<DB>) => ex.updateTable('automation_execution_steps')
          .set({ status: 'running', started_at: startedAt, attempts: sql<number>`attempts + 1`, error_message: null })
          .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('action_index', '=', index).where('status', '<>', 'completed')
          .returning('action_index')
          .executeTakeFirst();
        // An external step is marked running (and its attempt counted) before it runs; a transactional one
        // inside its transaction, which also locks the step against another run of the same job.
        if (!definition.transactional) await markRunning(db);
        log('info', executionText.actionStarted(index, action.type, attempt, attempts), index);
        const base = { actor: owner, executionId, ruleId: rule.rule_id, actionIndex: index, idempotencyKey: `${executionId}:${index}`, signingSecret: secret };
        try {
          if (definition.transactional) {
            return await inTransaction(async (trx) => {
              if (!(await markRunning(trx))) return false;
              const controller = new AbortController();
              const timer = setTimeout(() => controller.abort(new StepFailure(`${action.type} timed out`, true)), limit);
              let result: Record<string, unknown>;
              try {
                result = await withEventCause(cause, () => runner({ ...base, signal: controller.signal }, config, trx));
              } finally {
                clearTimeout(timer);
              }
              if (controller.signal.aborted) throw new StepFailure(`${action.type} timed out after ${Math.round(limit / 100) / 10} s (rolled back)`, true);
              await completeStep(trx, index, result, t0);
              // The last step: its transaction records the outcome too (one commit less per execution).
              if (index !== actions.length - 1) return false;
              await finishIn(trx, 'completed');
              return true;
            });
          }
          const result = await withEventCause(cause, () => withTimeout(limit, action.type, (signal) => runner({ ...base, signal }, config, null)));
          await inTransaction((trx) => completeStep(trx, index, result, t0));
          return false;
        } catch (err) {
          const message = errorText(err);
          const ms = Math.round(performance.now() - t0);
          // A transactional attempt's count rolled back with it: counted again here.
          if (definition.transactional) {
            await db.updateTable('automation_execution_steps').set({ attempts: sql<number>`attempts + 1`, started_at: startedAt })
              .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('action_index', '=', index).where('status', '<>', 'completed')
              .execute();
          }
          if (attempt < attempts && deadline - now().getTime() > 0) {
            log('warn', `Action ${index} (${action.type}) attempt ${attempt} failed after ${ms} ms: ${message}; retrying`, index, { attempt, duration_ms: ms });
            await sleep(Math.min(backoff(attempt), Math.max(0, deadline - now().getTime())));
            continue;
          }
          if (deadline - now().getTime() <= 0) throw new ExecutionTimeout();
          log('error', `Action ${index} (${action.type}) failed after ${ms} ms${attempts > 1 ? ` and ${attempt} attempts` : ''}: ${message}`, index, { attempt, duration_ms: ms });
          await markStep(index, { status: 'failed', error_message: message });
          throw new StepFailure(message, false);
        }
      }
    }

    async function completeStep(trx: Transaction<DB>, index: number, result: Record<string, unknown>, t0: number) {
      const ms = Math.round(performance.now() - t0);
      await trx.updateTable('automation_execution_steps')
        .set({ status: 'completed', completed_at: now(), duration_ms: ms, result: JSON.stringify(result ?? {}), error_message: null })
        .where('tenant', '=', tenant).where('execution_id', '=', executionId).where('action_index', '=', index)
        .execute();
      log('info', executionText.actionCompleted(index, actions[index]!.type, ms), index, { duration_ms: ms, result: result ?? {} });
    }
  }

  const fastPath = createFastPath({ db, runners: deps.runners, definitionOf: deps.definitionOf, ownerOf, now });

  /**
   * Jobs claimed together: the plain executions run in one transaction (fast-path.ts), the others one by
   * one through handle(), a few at a time.
   */
  async function handleBatch(jobs: readonly BatchJob[]): Promise<(string | undefined)[]> {
    const items = jobs.map((job) => ({ tenant: job.ctx.tenant, executionId: String(job.payload.execution_id ?? '') }));
    let fast = new Set<string>();
    try {
      fast = await fastPath.run(items.filter((i) => UUID_RE.test(i.executionId)));
    } catch (err) {
      // The batch rolled back whole (a deadlock, a lost connection): each execution goes the long way.
      deps.log?.error({ err, executions: items.length }, 'automation batch failed; running its executions one by one');
    }
    const outcomes: (string | undefined)[] = jobs.map(() => undefined);
    const rest = jobs.map((job, i) => ({ job, i })).filter(({ i }) => !fast.has(`${items[i]!.tenant}:${items[i]!.executionId}`));
    for (let from = 0; from < rest.length; from += SLOW_PATH_PARALLEL) {
      await Promise.all(rest.slice(from, from + SLOW_PATH_PARALLEL).map(async ({ job, i }) => {
        try {
          await handle(job.payload, job.ctx);
        } catch (err) {
          outcomes[i] = errorText(err);
        }
      }));
    }
    return outcomes;
  }

  return { name: EXECUTE_JOB, handle, batch: { size: BATCH_SIZE, handle: handleBatch }, maxAttempts: 10 };
}
