import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../../test/factories.ts';
import { makeClient } from '../../../../test/client-factories.ts';
import { makeTicket, prioritiesOf } from '../../../../test/ticket-factories.ts';
import {
  effectsOf, emitTestEvent, engineParts, executionsOf, FakeActions, logsOf, ManualWorker, quiet, seedRule, stepsOf,
} from '../../../../test/automation-engine-kit.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import { OutboxRelay } from '../../../platform/events/relay.ts';
import { JobRunner } from '../../../platform/jobs/runner.ts';
import { automationEventConsumer, MAX_CHAIN_DEPTH } from './event-consumer.ts';
import { startExecution } from './execute.ts';
import { runScheduleTick } from './schedule.ts';

let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
});
afterAll(async () => t.close());

const eventsOfType = (tenant: string, type: string) =>
  t.database.db.selectFrom('events').select(['event_id', 'payload', 'cause']).where('tenant', '=', tenant).where('event_type', '=', type).orderBy('event_id').execute();

describe('event trigger', () => {
  it('a ticket created through the API runs the matching rule once: execution, steps, logs, the action\'s effect caused by it', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId,
      trigger_config: { event_type: 'ticket.created', filters: [{ field: 'data.title', operator: 'starts_with', value: 'Printer' }] },
      conditions: [{ field: 'data.priority_name', operator: 'equals', value: 'High' }],
      actions: [
        { type: 'record', config: { ticket: '{{data.ticket_id}}', note: 'Ticket {{data.ticket_number}} is {{data.priority_name}}' } },
        { type: 'external', config: { to: '{{data.ticket_id}}' } },
      ],
    });
    const client = await makeClient(ten.admin);
    const priorities = await prioritiesOf(ten.admin);
    const high = await makeTicket(ten.admin, client.client_id, { title: 'Printer on fire', priority_id: priorities.High!.priority_id });
    await makeTicket(ten.admin, client.client_id, { title: 'Printer jammed', priority_id: priorities.Low!.priority_id });
    await makeTicket(ten.admin, client.client_id, { title: 'Mouse broken', priority_id: priorities.High!.priority_id });
    await worker.drain();

    const executions = await executionsOf(t, ten.tenant, ruleId);
    expect(executions).toHaveLength(1);
    const [execution] = executions;
    const [created] = (await eventsOfType(ten.tenant, 'ticket.created')).filter((e) => (e.payload as { data: { ticket_id: string } }).data.ticket_id === high.ticket_id);
    expect(execution).toMatchObject({
      trigger_type: 'event', trigger_key: created!.event_id, status: 'completed', depth: 0, cause_rule_ids: [],
      actions_total: 2, actions_successful: 2, actions_failed: 0, failed_action_index: null, error_message: null, attempts: 1,
    });
    expect(execution!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(execution!.completed_at).not.toBeNull();
    expect(execution!.trigger_data).toMatchObject({ event_type: 'ticket.created', data: { ticket_id: high.ticket_id, priority_name: 'High' }, trigger: { type: 'event', event_id: created!.event_id } });

    const steps = await stepsOf(t, ten.tenant, execution!.execution_id);
    expect(steps.map((s) => [s.action_index, s.action_type, s.status, s.attempts])).toEqual([[0, 'record', 'completed', 1], [1, 'external', 'completed', 1]]);
    expect(steps[0]!.result).toMatchObject({ recorded: true, ticket: high.ticket_id, note: `Ticket ${high.ticket_number} is High` });

    const effects = await effectsOf(t, ten.tenant, execution!.execution_id);
    expect(effects).toEqual([{ data: { ticket: high.ticket_id, note: `Ticket ${high.ticket_number} is High`, action_index: 0 }, cause: { execution_id: execution!.execution_id, rule_ids: [ruleId], depth: 1 } }]);
    expect(fakes.calls).toEqual([{ index: 1, idempotencyKey: `${execution!.execution_id}:1`, config: { to: high.ticket_id }, executionId: execution!.execution_id }]);

    const logs = await logsOf(t, ten.tenant, execution!.execution_id);
    expect(logs.map((l) => [l.level, l.action_index, l.message])).toEqual([
      ['info', null, `Triggered by ticket.created (event ${created!.event_id}): 1 of 1 conditions passed (and)`],
      ['info', null, 'Execution started (event trigger, 2 actions)'],
      ['info', 0, 'Action 0 (record) started'],
      ['info', 0, expect.stringMatching(/^Action 0 \(record\) completed in \d+ ms$/)],
      ['info', 1, 'Action 1 (external) started'],
      ['info', 1, expect.stringMatching(/^Action 1 \(external\) completed in \d+ ms$/)],
      ['info', null, expect.stringMatching(/^Execution completed in \d+ ms \(2 succeeded, 0 failed\)$/)],
    ]);
    expect(logs[0]!.metadata).toMatchObject({ conditions: [{ field: 'data.priority_name', operator: 'equals', value: 'High', actual: 'High', passed: true }] });

    const outcome = await eventsOfType(ten.tenant, 'automation.execution.completed');
    const mine = outcome.filter((e) => (e.payload as { execution_id: string }).execution_id === execution!.execution_id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.payload).toMatchObject({ execution_id: execution!.execution_id, rule_id: ruleId, status: 'completed', actions_successful: 2 });
    expect(mine[0]!.cause).toEqual({ execution_id: execution!.execution_id, rule_ids: [ruleId], depth: 1 });
    const rule = await t.database.db.selectFrom('automation_rules').select(['last_run_at', 'last_error']).where('rule_id', '=', ruleId).executeTakeFirstOrThrow();
    expect(rule.last_run_at).not.toBeNull();
    expect(rule.last_error).toBeNull();
  });

  it('an event delivered twice (or in two batches) starts one execution; inactive rules and other tenants\' rules start none', async () => {
    const other = await makeTenant(t);
    const active = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.dup' } });
    const inactive = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, status: 'inactive', trigger_config: { event_type: 'test.dup' } });
    const foreign = await seedRule(t, other.tenant, { created_by: other.adminUserId, trigger_config: { event_type: 'test.dup' } });
    const eventId = await emitTestEvent(t, ten.tenant, 'test.dup', { n: 1 });
    const relay = new OutboxRelay(t.database.db, [], quiet);
    const [claimed] = (await relay.claim()).filter((e) => e.event_id === eventId);
    const consumer = automationEventConsumer({ db: t.database.db });
    await consumer.handleBatch!([claimed!, claimed!]);
    await consumer.handle(claimed!);
    await consumer.handleBatch!([claimed!]);
    expect(await executionsOf(t, ten.tenant, active)).toHaveLength(1);
    expect(await executionsOf(t, ten.tenant, inactive)).toHaveLength(0);
    expect(await executionsOf(t, other.tenant, foreign)).toHaveLength(0);
    const jobs = await t.database.db.selectFrom('jobs').select('payload').where('tenant', '=', ten.tenant).where('name', '=', 'automation.execute').execute();
    const [execution] = await executionsOf(t, ten.tenant, active);
    expect(jobs.filter((j) => j.payload.execution_id === execution!.execution_id)).toHaveLength(1);
  });

  it('event filters (conditions or a field map) and or-conditions decide which rules start', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const byMap = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.filters', filters: { kind: 'a' } } });
    const byOr = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_config: { event_type: 'test.filters' }, condition_logic: 'or',
      conditions: [{ field: 'data.n', operator: 'greater_than', value: 10 }, { field: 'data.kind', operator: 'in', value: ['b'] }],
    });
    await emitTestEvent(t, ten.tenant, 'test.filters', { kind: 'a', n: 1 });
    await emitTestEvent(t, ten.tenant, 'test.filters', { kind: 'b', n: 1 });
    await emitTestEvent(t, ten.tenant, 'test.filters', { kind: 'c', n: 11 });
    await worker.drain();
    expect((await executionsOf(t, ten.tenant, byMap)).map((e) => (e.trigger_data as { data: { kind: string } }).data.kind)).toEqual(['a']);
    expect((await executionsOf(t, ten.tenant, byOr)).map((e) => (e.trigger_data as { data: { kind: string } }).data.kind)).toEqual(['b', 'c']);
  });
});

describe('loop guard', () => {
  it('a rule whose action emits the event it listens to runs once', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.loop' }, actions: [{ type: 'emit', config: { event_type: 'test.loop', data: { again: true } } }] });
    await emitTestEvent(t, ten.tenant, 'test.loop', { first: true });
    await worker.drain();
    expect((await executionsOf(t, ten.tenant, ruleId)).map((e) => e.status)).toEqual(['completed']);
    const events = await eventsOfType(ten.tenant, 'test.loop');
    expect(events).toHaveLength(2);
    expect(events[1]!.cause).toMatchObject({ rule_ids: [ruleId], depth: 1 });
  });

  it(`a chain of rules stops at depth ${MAX_CHAIN_DEPTH}`, async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const hop = (from: string, to: string) => seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: `chain.${from}` }, actions: [{ type: 'emit', config: { event_type: `chain.${to}` } }] });
    const [a, b, c, d] = [await hop('a', 'b'), await hop('b', 'c'), await hop('c', 'd'), await hop('d', 'e')];
    await emitTestEvent(t, ten.tenant, 'chain.a', {});
    await worker.drain();
    const [ea] = await executionsOf(t, ten.tenant, a!);
    const [eb] = await executionsOf(t, ten.tenant, b!);
    const [ec] = await executionsOf(t, ten.tenant, c!);
    expect([ea, eb, ec].map((e) => [e!.status, e!.depth, e!.cause_rule_ids])).toEqual([['completed', 0, []], ['completed', 1, [a]], ['completed', 2, [a, b]]]);
    expect(await executionsOf(t, ten.tenant, d!)).toEqual([]);
    expect((await eventsOfType(ten.tenant, 'chain.d'))[0]!.cause).toEqual({ execution_id: ec!.execution_id, rule_ids: [a, b, c], depth: 3 });
    expect(await eventsOfType(ten.tenant, 'chain.e')).toEqual([]);
  });
});

describe('execution runner', () => {
  it('respects max_concurrent_executions: the second execution waits until the first finishes', async () => {
    const fakes = new FakeActions();
    const parts = engineParts(t, fakes.options());
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'manual', max_concurrent_executions: 1, actions: [{ type: 'slow', config: { ms: 150 } }] });
    const rule = { rule_id: ruleId, actions: [{ type: 'slow', config: { ms: 150 }, order: 1, continue_on_error: false, retry_attempts: 0, timeout_seconds: 30 }] };
    for (const key of ['c1', 'c2', 'c3']) {
      await withTransaction(t.database.db, (trx) => startExecution(trx, { tenant: ten.tenant, rule, triggerType: 'manual', triggerKey: key, envelope: { event_type: 'x', data: {}, trigger: {} } }));
    }
    const runner = new JobRunner(t.database, [...parts.jobs!], quiet, { concurrency: 3 });
    for (let i = 0; i < 40 && (await executionsOf(t, ten.tenant, ruleId)).some((e) => e.status !== 'completed'); i++) await runner.runOnce();
    expect((await executionsOf(t, ten.tenant, ruleId)).map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    expect(fakes.maxRunning).toBe(1);
  });

  it('retries an action, continues past a failure with continue_on_error, and stops at one without', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    fakes.failExternal = 1;
    const retried = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.retry' }, actions: [{ type: 'external', retry_attempts: 1 }, { type: 'record' }] });
    await emitTestEvent(t, ten.tenant, 'test.retry', {});
    await worker.drain();
    const [ok] = await executionsOf(t, ten.tenant, retried);
    expect(ok).toMatchObject({ status: 'completed', actions_successful: 2 });
    expect((await stepsOf(t, ten.tenant, ok!.execution_id)).map((s) => [s.status, s.attempts])).toEqual([['completed', 2], ['completed', 1]]);
    expect(fakes.calls.map((c) => c.idempotencyKey)).toEqual([`${ok!.execution_id}:0`, `${ok!.execution_id}:0`]);

    const continued = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_config: { event_type: 'test.continue' },
      actions: [{ type: 'record', config: { id: '{{data.missing}}' }, continue_on_error: true }, { type: 'record', config: { ok: 1 } }],
    });
    const stopped = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_config: { event_type: 'test.continue' },
      actions: [{ type: 'record', config: { ok: 1 } }, { type: 'nope' }, { type: 'record', config: { never: 1 } }],
    });
    await emitTestEvent(t, ten.tenant, 'test.continue', {});
    await worker.drain();
    const [c] = await executionsOf(t, ten.tenant, continued);
    expect(c).toMatchObject({ status: 'completed', actions_successful: 1, actions_failed: 1, failed_action_index: null });
    expect((await stepsOf(t, ten.tenant, c!.execution_id)).map((s) => [s.status, s.error_message])).toEqual([['failed', 'placeholder data.missing has no value'], ['completed', null]]);
    const [s] = await executionsOf(t, ten.tenant, stopped);
    expect(s).toMatchObject({ status: 'failed', actions_successful: 1, actions_failed: 1, failed_action_index: 1, error_message: "Action 1 (nope) failed: unknown action type 'nope'" });
    expect((await stepsOf(t, ten.tenant, s!.execution_id)).map((x) => x.status)).toEqual(['completed', 'failed', 'skipped']);
    expect(await effectsOf(t, ten.tenant, s!.execution_id)).toHaveLength(1);
    const failedEvents = (await eventsOfType(ten.tenant, 'automation.execution.failed')).filter((e) => (e.payload as { execution_id: string }).execution_id === s!.execution_id);
    expect(failedEvents).toHaveLength(1);
    expect(failedEvents[0]!.payload).toMatchObject({ status: 'failed', failed_action_index: 1 });
    const rule = await t.database.db.selectFrom('automation_rules').select('last_error').where('rule_id', '=', stopped).executeTakeFirstOrThrow();
    expect(rule.last_error).toBe("Action 1 (nope) failed: unknown action type 'nope'");
  });

  it('a rule with retry_failed_executions runs a failed execution again (completed steps kept), up to 3 times', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.rerun' }, retry_failed_executions: true, actions: [{ type: 'record', config: { n: 1 } }, { type: 'external' }] });
    fakes.failExternal = 2;
    await emitTestEvent(t, ten.tenant, 'test.rerun', {});
    await worker.drain();
    const [e] = await executionsOf(t, ten.tenant, ruleId);
    expect(e).toMatchObject({ status: 'completed', attempts: 3, actions_successful: 2, error_message: null });
    expect(await effectsOf(t, ten.tenant, e!.execution_id)).toHaveLength(1);
    expect(fakes.calls).toHaveLength(3);
    const warnings = (await logsOf(t, ten.tenant, e!.execution_id)).filter((l) => l.level === 'warn' && l.message.includes('retry_failed_executions'));
    expect(warnings.map((l) => l.message)).toEqual([
      'Execution failed (Action 1 (external) failed: external failed on purpose); retrying in 0 s (retry 1 of 3, retry_failed_executions)',
      'Execution failed (Action 1 (external) failed: external failed on purpose); retrying in 0 s (retry 2 of 3, retry_failed_executions)',
    ]);

    fakes.failExternal = 10;
    await emitTestEvent(t, ten.tenant, 'test.rerun', {});
    await worker.drain();
    const [, last] = await executionsOf(t, ten.tenant, ruleId);
    expect(last).toMatchObject({ status: 'failed', attempts: 4, failed_action_index: 1 });
    expect(fakes.calls).toHaveLength(7);
  });

  it('a transactional action that fails after writing leaves nothing, and its retry writes once', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.rollback' }, actions: [{ type: 'fail_then_record', retry_attempts: 2, config: { n: 1 } }] });
    await emitTestEvent(t, ten.tenant, 'test.rollback', {});
    await worker.drain();
    const [e] = await executionsOf(t, ten.tenant, ruleId);
    expect(e).toMatchObject({ status: 'completed' });
    expect((await stepsOf(t, ten.tenant, e!.execution_id)).map((s) => [s.status, s.attempts])).toEqual([['completed', 2]]);
    expect(await effectsOf(t, ten.tenant, e!.execution_id)).toHaveLength(1);
  });

  it('an action past its timeout_seconds fails; the owner losing a permission fails the step; a gone owner fails the execution', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const timed = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.owner' }, actions: [{ type: 'slow', config: { ms: 5000 }, timeout_seconds: 1 }] });
    const tech = await makeUser(t, ten.tenant, { role: 'Technician' });
    const lacking = await seedRule(t, ten.tenant, { created_by: tech.userId, trigger_config: { event_type: 'test.owner' }, actions: [{ type: 'admin_only' }] });
    const gone = await makeUser(t, ten.tenant, { role: 'Manager' });
    const orphan = await seedRule(t, ten.tenant, { created_by: gone.userId, trigger_config: { event_type: 'test.owner' }, actions: [{ type: 'record' }] });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', ten.tenant).where('user_id', '=', gone.userId).execute();
    await emitTestEvent(t, ten.tenant, 'test.owner', {});
    const started = Date.now();
    await worker.drain();
    expect(Date.now() - started).toBeLessThan(4500);
    const [a] = await executionsOf(t, ten.tenant, timed);
    expect(a).toMatchObject({ status: 'failed', failed_action_index: 0, error_message: 'Action 0 (slow) failed: slow timed out after 1 s' });
    const [b] = await executionsOf(t, ten.tenant, lacking);
    expect(b).toMatchObject({ status: 'failed', error_message: "Action 0 (admin_only) failed: the rule's owner lacks the permission automation:delete that admin_only needs" });
    const [c] = await executionsOf(t, ten.tenant, orphan);
    expect(c).toMatchObject({ status: 'failed', failed_action_index: null, error_message: "The rule's owner is deactivated or deleted; its actions cannot run", actions_successful: 0 });
    expect((await stepsOf(t, ten.tenant, c!.execution_id)).map((s) => s.status)).toEqual(['skipped']);
  });

  it('the execution timeout stops the run with status timeout', async () => {
    const fakes = new FakeActions();
    let clock = Date.now();
    const worker = new ManualWorker(t, engineParts(t, fakes.options({ runner: { retryBackoffMs: () => 0, concurrencyDelayMs: () => 0, now: () => new Date(clock) } })));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.deadline' }, execution_timeout_minutes: 1, actions: [{ type: 'external' }, { type: 'record' }] });
    fakes.onExternal = () => { clock += 61_000; };
    await emitTestEvent(t, ten.tenant, 'test.deadline', {});
    await worker.drain();
    const [e] = await executionsOf(t, ten.tenant, ruleId);
    expect(e).toMatchObject({ status: 'timeout', failed_action_index: 1, error_message: 'The execution exceeded its timeout of 1 minute' });
    expect(await effectsOf(t, ten.tenant, e!.execution_id)).toEqual([]);
    expect((await eventsOfType(ten.tenant, 'automation.execution.failed')).some((x) => (x.payload as { execution_id: string; status: string }).execution_id === e!.execution_id)).toBe(true);
  });

  it('a worker that dies mid-execution is taken over after its lease: every completed step happens exactly once', async () => {
    const fakes = new FakeActions();
    const parts = engineParts(t, fakes.options());
    const ruleId = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, trigger_config: { event_type: 'test.crash' },
      actions: [{ type: 'record', config: { step: 'first' } }, { type: 'external' }, { type: 'record', config: { step: 'third' } }],
    });
    await emitTestEvent(t, ten.tenant, 'test.crash', {});
    await new OutboxRelay(t.database.db, parts.consumers!, quiet).runOnce();
    const [execution] = await executionsOf(t, ten.tenant, ruleId);

    // Worker A runs the first step, then hangs inside the external call (no transaction open) — as good as dead.
    let release!: () => void;
    fakes.hold = new Promise<void>((r) => { release = r; });
    const entered = new Promise<void>((r) => { fakes.onExternal = r; });
    let now = Date.now();
    const clock = () => new Date(now);
    const a = new JobRunner(t.database, [...parts.jobs!], quiet, { leaseMs: 30_000, now: clock });
    const zombie = a.runOnce();
    await entered;
    fakes.hold = undefined;
    expect((await stepsOf(t, ten.tenant, execution!.execution_id)).map((s) => s.status)).toEqual(['completed', 'running', 'pending']);

    // Its lease runs out; worker B claims the job and resumes: the completed step is not repeated.
    now += 31_000;
    const b = new JobRunner(t.database, [...parts.jobs!], quiet, { leaseMs: 30_000, now: clock });
    expect(await b.runOnce()).toBe(1);
    const [resumed] = await executionsOf(t, ten.tenant, ruleId);
    expect(resumed).toMatchObject({ status: 'completed', attempts: 2, actions_successful: 3 });

    // The zombie wakes up: it neither repeats a step nor finishes the execution a second time.
    release();
    await zombie;
    const effects = await effectsOf(t, ten.tenant, execution!.execution_id);
    expect(effects.map((e) => e.data.step)).toEqual(['first', 'third']);
    expect(fakes.calls.map((c) => c.idempotencyKey)).toEqual([`${execution!.execution_id}:1`, `${execution!.execution_id}:1`]);
    const completed = (await eventsOfType(ten.tenant, 'automation.execution.completed')).filter((e) => (e.payload as { execution_id: string }).execution_id === execution!.execution_id);
    expect(completed).toHaveLength(1);
    const logs = await logsOf(t, ten.tenant, execution!.execution_id);
    expect(logs.some((l) => l.message.startsWith('Execution resumed (run 2)'))).toBe(true);
  });
});

describe('schedule trigger', () => {
  it('two workers ticking at once start one execution per due time and move next_run_at in the rule\'s time zone', async () => {
    const due = new Date(Date.now() - 90_000);
    due.setUTCSeconds(0, 0);
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'schedule', trigger_config: { cron: '0 9 * * *', timezone: 'America/New_York' }, next_run_at: due });
    const started = await Promise.all([runScheduleTick(t.database.db), runScheduleTick(t.database.db)]);
    expect(started.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(1);
    const executions = await executionsOf(t, ten.tenant, ruleId);
    expect(executions.map((e) => [e.trigger_type, e.trigger_key, e.status])).toEqual([['schedule', `schedule:${due.toISOString()}`, 'pending']]);
    expect(executions[0]!.trigger_data).toMatchObject({ data: { scheduled_for: due.toISOString() } });
    const rule = await t.database.db.selectFrom('automation_rules').select('next_run_at').where('rule_id', '=', ruleId).executeTakeFirstOrThrow();
    expect(rule.next_run_at!.getTime()).toBeGreaterThan(Date.now());
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', minute: 'numeric', hour12: false }).format(rule.next_run_at!);
    expect(local).toBe('09:00');

    // The same due time seen again (a tick that read it before the move committed) adds nothing.
    await t.database.db.updateTable('automation_rules').set({ next_run_at: due }).where('rule_id', '=', ruleId).execute();
    await runScheduleTick(t.database.db);
    expect(await executionsOf(t, ten.tenant, ruleId)).toHaveLength(1);
  });

  it('missed due times collapse into one run; a rule without next_run_at gets one; an unparsable schedule sets status error', async () => {
    const longAgo = new Date(Date.now() - 3 * 3600_000);
    const everyMinute = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'schedule', trigger_config: { cron: '* * * * *' }, next_run_at: longAgo });
    const fresh = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'schedule', trigger_config: { cron: '*/5 * * * *' } });
    const broken = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_type: 'schedule', trigger_config: { cron: 'not a cron' }, next_run_at: longAgo });
    await runScheduleTick(t.database.db);
    await runScheduleTick(t.database.db);
    expect(await executionsOf(t, ten.tenant, everyMinute)).toHaveLength(1);
    expect(await executionsOf(t, ten.tenant, fresh)).toHaveLength(0);
    const rows = await t.database.db.selectFrom('automation_rules').select(['rule_id', 'status', 'next_run_at', 'last_error']).where('rule_id', 'in', [fresh, broken]).execute();
    const byId = new Map(rows.map((r) => [r.rule_id, r]));
    expect(byId.get(fresh)!.next_run_at!.getTime()).toBeGreaterThan(Date.now());
    expect(byId.get(fresh)!.status).toBe('active');
    expect(byId.get(broken)).toMatchObject({ status: 'error', next_run_at: null, last_error: expect.stringContaining('The schedule does not parse') });
  });
});
