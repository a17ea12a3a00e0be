import { sql } from 'kysely';
import { Type } from 'typebox';
import { loadConfig } from '../src/config.ts';
import { engineWorker, type ActionDefinition, type ActionRunner, type EngineWorkerOptions } from '../src/modules/automation/index.ts';
import type { RuleAction, RuleCondition, TriggerType } from '../src/platform/db/schema.automation.ts';
import { withTransaction } from '../src/platform/db/executor.ts';
import { emit } from '../src/platform/events/outbox.ts';
import { OutboxRelay } from '../src/platform/events/relay.ts';
import { newId } from '../src/platform/ids.ts';
import { JobRunner, type JobRunnerOptions } from '../src/platform/jobs/runner.ts';
import type { Mailer, MailMessage } from '../src/platform/mail/mailer.ts';
import type { WorkerParts } from '../src/platform/modules/module.ts';
import type { TestApp } from './harness.ts';

/** Shared pieces of the automation engine suites: rules written straight to the table, fake actions, a worker driven by hand. */

export const quiet = { info: () => undefined, error: () => undefined };

export interface RuleSeed {
  name?: string;
  status?: 'draft' | 'active' | 'inactive' | 'error';
  trigger_type?: TriggerType;
  trigger_config?: Record<string, unknown>;
  conditions?: RuleCondition[];
  condition_logic?: 'and' | 'or';
  actions?: Partial<RuleAction>[];
  max_concurrent_executions?: number;
  execution_timeout_minutes?: number;
  retry_failed_executions?: boolean;
  next_run_at?: Date | null;
  created_by: string;
}

/** A rule inserted directly (the engine's tests do not depend on the rules API's validation). */
export async function seedRule(t: TestApp, tenant: string, seed: RuleSeed): Promise<string> {
  const ruleId = newId();
  await t.database.db.insertInto('automation_rules').values({
    tenant,
    rule_id: ruleId,
    name: seed.name ?? `Rule ${ruleId.slice(-6)}`,
    status: seed.status ?? 'active',
    trigger_type: seed.trigger_type ?? 'event',
    trigger_config: JSON.stringify(seed.trigger_config ?? {}),
    conditions: JSON.stringify(seed.conditions ?? []),
    condition_logic: seed.condition_logic ?? 'and',
    actions: JSON.stringify((seed.actions ?? [{ type: 'record' }]).map((a, i) => ({
      type: a.type ?? 'record', config: a.config ?? {}, order: a.order ?? i + 1, continue_on_error: a.continue_on_error ?? false,
      retry_attempts: a.retry_attempts ?? 0, timeout_seconds: a.timeout_seconds ?? 30,
    }))),
    max_concurrent_executions: seed.max_concurrent_executions ?? 1,
    execution_timeout_minutes: seed.execution_timeout_minutes ?? 60,
    retry_failed_executions: seed.retry_failed_executions ?? false,
    next_run_at: seed.next_run_at ?? null,
    signing_secret_enc: t.app.secretBox.encrypt('asec_test_secret'),
    created_by: seed.created_by,
    updated_by: seed.created_by,
  }).execute();
  return ruleId;
}

/**
 * Fake actions. `record` (transactional) emits a `test.effect` event in the step's transaction: its rows
 * are the side effects a test counts. `emit` (transactional) emits `config.event_type` with `config.data`.
 * `external` (not transactional) appends to `calls` and fails while `failExternal` > 0. `slow` waits
 * `config.ms` (abandoned at its timeout). `fail_then_record` writes its effect then throws on its first
 * run (the transaction rolls back). `admin_only` needs automation:delete. While `poisonCommit` > 0, `record`
 * makes its transaction fail at COMMIT.
 */
export class FakeActions {
  calls: { index: number; idempotencyKey: string; config: Record<string, unknown>; executionId: string }[] = [];
  failExternal = 0;
  failRecord = 0;
  /** How many more `record` runs make their transaction fail at commit (see poisonTable). */
  poisonCommit = 0;
  running = 0;
  maxRunning = 0;
  /** Called when `external` is entered (before it resolves); a test may hold it with `hold`. */
  hold: Promise<void> | undefined;
  onExternal: (() => void) | undefined;
  private failedOnce = new Set<string>();

  readonly definitions: Record<string, ActionDefinition> = {
    record: { type: 'record', description: 'test', config: Type.Object({}), permissions: ['ticket:read'], transactional: true },
    emit: { type: 'emit', description: 'test', config: Type.Object({}), permissions: [], transactional: true },
    external: { type: 'external', description: 'test', config: Type.Object({}), permissions: [], transactional: false },
    slow: { type: 'slow', description: 'test', config: Type.Object({}), permissions: [], transactional: false },
    fail_then_record: { type: 'fail_then_record', description: 'test', config: Type.Object({}), permissions: [], transactional: true },
    admin_only: { type: 'admin_only', description: 'test', config: Type.Object({}), permissions: ['automation:delete'], transactional: true },
  };

  readonly runners: Record<string, ActionRunner> = {
    record: async (ctx, config, trx) => {
      if (this.failRecord > 0) {
        this.failRecord--;
        throw new Error('record failed on purpose');
      }
      if (this.poisonCommit > 0) {
        // A row its deferred constraint refuses only at COMMIT: the transaction does all its work, then is lost
        // (as when a worker dies before its commit). The suite creates the table (poisonTable).
        this.poisonCommit--;
        await sql`insert into test_commit_poison (id, ref) values (${Math.floor(Math.random() * 1e9)}, -1)`.execute(trx!);
      }
      await emit(trx!, { tenant: ctx.actor.tenant, event_type: 'test.effect', aggregate_type: 'test', aggregate_id: ctx.executionId, payload: { data: { ...config, action_index: ctx.actionIndex } } });
      return { recorded: true, ...config };
    },
    emit: async (ctx, config, trx) => {
      await emit(trx!, { tenant: ctx.actor.tenant, event_type: String(config.event_type), aggregate_type: 'test', aggregate_id: newId(), payload: { data: config.data ?? {} } });
      return { emitted: config.event_type };
    },
    external: async (ctx, config) => {
      this.calls.push({ index: ctx.actionIndex, idempotencyKey: ctx.idempotencyKey, config, executionId: ctx.executionId });
      this.onExternal?.();
      if (this.hold) await this.hold;
      if (this.failExternal > 0) {
        this.failExternal--;
        throw new Error('external failed on purpose');
      }
      return { called: true };
    },
    slow: async (ctx, config) => {
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, Number(config.ms ?? 50));
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
      } finally {
        this.running--;
      }
      return { slept: config.ms };
    },
    fail_then_record: async (ctx, config, trx) => {
      await emit(trx!, { tenant: ctx.actor.tenant, event_type: 'test.effect', aggregate_type: 'test', aggregate_id: ctx.executionId, payload: { data: { ...config, action_index: ctx.actionIndex } } });
      const key = ctx.idempotencyKey;
      if (!this.failedOnce.has(key)) {
        this.failedOnce.add(key);
        throw new Error('failed after writing (rolled back)');
      }
      return { recorded: true };
    },
    admin_only: async () => ({ ok: true }),
  };

  options(extra: Partial<EngineWorkerOptions> = {}): EngineWorkerOptions {
    return {
      runners: this.runners,
      definitionOf: (type) => this.definitions[type],
      runner: { retryBackoffMs: () => 0, concurrencyDelayMs: () => 0, executionRetryDelayMs: () => 0 },
      ...extra,
    };
  }
}

/** The table FakeActions.poisonCommit writes to: a deferred foreign key that fails the commit, not the insert. */
export async function poisonTable(t: TestApp): Promise<void> {
  await sql`create table if not exists test_commit_poison (id bigint primary key, ref bigint references test_commit_poison (id) deferrable initially deferred)`.execute(t.database.db);
}

export class FakeMailer implements Mailer {
  sent: MailMessage[] = [];
  async send(msg: MailMessage): Promise<void> {
    this.sent.push(msg);
  }
  async close(): Promise<void> {}
}

/** The engine's worker parts over the test app's database (fake actions unless `opts.runners` is left out). */
export function engineParts(t: TestApp, opts: EngineWorkerOptions = {}, mailer: Mailer = new FakeMailer()): WorkerParts {
  return engineWorker({
    db: t.database.db,
    database: t.database,
    config: loadConfig({ PSA_SECRET_KEY: Buffer.alloc(32, 7).toString('base64url') }),
    secretBox: t.app.secretBox,
    mailer,
    log: quiet,
  }, opts);
}

/** A worker driven by hand: the relay through the engine's consumer, and a job runner of its jobs. */
export class ManualWorker {
  readonly relay: OutboxRelay;
  readonly runner: JobRunner;
  constructor(private readonly t: TestApp, parts: WorkerParts, runnerOpts: JobRunnerOptions = {}) {
    this.relay = new OutboxRelay(t.database.db, parts.consumers ?? [], quiet);
    this.runner = new JobRunner(t.database, [...(parts.jobs ?? [])], quiet, runnerOpts);
  }

  /** Relays events and runs jobs until neither has anything left. */
  async drain(rounds = 50): Promise<void> {
    for (let i = 0; i < rounds; i++) {
      const events = await this.relay.runOnce();
      const jobs = await this.runner.runOnce();
      if (events === 0 && jobs === 0) return;
    }
    throw new Error('the worker did not drain');
  }
}

export async function emitTestEvent(t: TestApp, tenant: string, eventType: string, data: Record<string, unknown>): Promise<string> {
  return withTransaction(t.database.db, (trx) => emit(trx, { tenant, event_type: eventType, aggregate_type: 'test', aggregate_id: newId(), payload: { data } }));
}

export const executionsOf = (t: TestApp, tenant: string, ruleId: string) =>
  t.database.db.selectFrom('automation_executions').selectAll().where('tenant', '=', tenant).where('rule_id', '=', ruleId).orderBy('created_at').orderBy('execution_id').execute();

export const stepsOf = (t: TestApp, tenant: string, executionId: string) =>
  t.database.db.selectFrom('automation_execution_steps').selectAll().where('tenant', '=', tenant).where('execution_id', '=', executionId).orderBy('action_index').execute();

export const logsOf = (t: TestApp, tenant: string, executionId: string) =>
  t.database.db.selectFrom('automation_execution_logs').selectAll().where('tenant', '=', tenant).where('execution_id', '=', executionId).orderBy('logged_at').orderBy('log_id').execute();

/** The `test.effect` events a fake action wrote for an execution. */
export const effectsOf = async (t: TestApp, tenant: string, executionId: string) =>
  (await t.database.db.selectFrom('events').select(['payload', 'cause']).where('tenant', '=', tenant).where('event_type', '=', 'test.effect').where('aggregate_id', '=', executionId).orderBy('event_id').execute())
    .map((r) => ({ data: (r.payload as { data: Record<string, unknown> }).data, cause: r.cause }));
