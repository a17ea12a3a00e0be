import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, type TenantFixture } from '../../../../test/factories.ts';
import {
  effectsOf, emitTestEvent, engineParts, executionsOf, FakeActions, logsOf, ManualWorker, poisonTable, seedRule, stepsOf,
} from '../../../../test/automation-engine-kit.ts';
import { newId } from '../../../platform/ids.ts';

/**
 * The batch path (fast-path.ts): executions claimed together run in one transaction; anything out of the
 * ordinary goes the per-execution way, with the same records either way.
 */

let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
  await poisonTable(t);
});
afterAll(async () => t.close());

const completedEventsOf = async (executionId: string) =>
  (await t.database.db.selectFrom('events').select(['payload', 'cause']).where('tenant', '=', ten.tenant)
    .where('event_type', '=', 'automation.execution.completed').where('aggregate_id', '=', executionId).execute());

describe('the batch path', () => {
  it('runs a batch of plain executions with the records of the single path: steps, logs, outcome events with their cause, the rule\'s last run', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, {
      created_by: ten.adminUserId, max_concurrent_executions: 1, trigger_config: { event_type: 'test.batch' },
      actions: [{ type: 'record', config: { n: '{{data.n}}' } }, { type: 'record', config: { second: true } }],
    });
    for (let n = 0; n < 5; n++) await emitTestEvent(t, ten.tenant, 'test.batch', { n });
    // One claim runs them all, one after another in the batch's transaction, although the rule allows one
    // running execution at a time (one by one, four would have been held back for another pass).
    await worker.relay.runOnce();
    expect(await worker.runner.runOnce()).toBe(5);

    const executions = await executionsOf(t, ten.tenant, ruleId);
    expect(executions).toHaveLength(5);
    for (const e of executions) {
      expect(e).toMatchObject({ status: 'completed', attempts: 1, actions_total: 2, actions_successful: 2, actions_failed: 0, error_message: null });
      expect(e.started_at!.getTime()).toBeLessThanOrEqual(e.completed_at!.getTime());
      expect((await stepsOf(t, ten.tenant, e.execution_id)).map((s) => [s.action_index, s.status, s.attempts])).toEqual([[0, 'completed', 1], [1, 'completed', 1]]);
      const effects = await effectsOf(t, ten.tenant, e.execution_id);
      expect(effects.map((x) => x.data.action_index)).toEqual([0, 1]);
      expect(effects[0]!.cause).toEqual({ execution_id: e.execution_id, rule_ids: [ruleId], depth: 1 });
      const logs = (await logsOf(t, ten.tenant, e.execution_id)).map((l) => l.message.replace(/\d+ ms/g, 'N ms'));
      expect(logs.slice(1)).toEqual([
        'Execution started (event trigger, 2 actions)',
        'Action 0 (record) started', 'Action 0 (record) completed in N ms',
        'Action 1 (record) started', 'Action 1 (record) completed in N ms',
        'Execution completed in N ms (2 succeeded, 0 failed)',
      ]);
      const [outcome] = await completedEventsOf(e.execution_id);
      expect(outcome).toMatchObject({ payload: { execution_id: e.execution_id, rule_id: ruleId, status: 'completed', actions_successful: 2 }, cause: { execution_id: e.execution_id, rule_ids: [ruleId], depth: 1 } });
    }
    const n = executions.map((e) => (e.trigger_data as { data: { n: number } }).data.n).sort();
    expect(n).toEqual([0, 1, 2, 3, 4]);
    const rule = await t.database.db.selectFrom('automation_rules').select(['last_run_at', 'last_error']).where('tenant', '=', ten.tenant).where('rule_id', '=', ruleId).executeTakeFirstOrThrow();
    expect(rule.last_run_at).toBeInstanceOf(Date);
  });

  it('a batch whose commit is lost (a worker dying before it) leaves nothing; each execution then runs exactly once', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.lost' }, actions: [{ type: 'record' }] });
    for (let n = 0; n < 4; n++) await emitTestEvent(t, ten.tenant, 'test.lost', { n });
    fakes.poisonCommit = 1;
    await worker.drain();
    expect(fakes.poisonCommit).toBe(0);
    const executions = await executionsOf(t, ten.tenant, ruleId);
    expect(executions.map((e) => [e.status, e.attempts])).toEqual(Array(4).fill(['completed', 1]));
    for (const e of executions) {
      expect(await effectsOf(t, ten.tenant, e.execution_id)).toHaveLength(1);
      expect(await completedEventsOf(e.execution_id)).toHaveLength(1);
      expect((await stepsOf(t, ten.tenant, e.execution_id)).map((s) => [s.status, s.attempts])).toEqual([['completed', 1]]);
    }
  });

  it('an attempt that fails in a batch is rolled back, logged and counted: the execution continues on its own with the attempts left', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const retried = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.flaky' }, actions: [{ type: 'fail_then_record', retry_attempts: 1 }] });
    const once = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.flaky' }, actions: [{ type: 'record' }, { type: 'fail_then_record', retry_attempts: 0 }] });
    await emitTestEvent(t, ten.tenant, 'test.flaky', {});
    await worker.drain();

    const [ok] = await executionsOf(t, ten.tenant, retried);
    expect(ok).toMatchObject({ status: 'completed', attempts: 1 });
    expect((await stepsOf(t, ten.tenant, ok!.execution_id)).map((s) => [s.status, s.attempts])).toEqual([['completed', 2]]);
    expect(await effectsOf(t, ten.tenant, ok!.execution_id)).toHaveLength(1);
    const okLogs = (await logsOf(t, ten.tenant, ok!.execution_id)).map((l) => l.message.replace(/\d+ ms/g, 'N ms'));
    expect(okLogs).toContain('Action 0 (fail_then_record) attempt 1 failed after N ms: failed after writing (rolled back); rolled back, the execution continues on its own');
    expect(okLogs).toContain('Action 0 (fail_then_record) started (attempt 2 of 2)');

    // No retry left: the batch's attempt was the only one. The first action's write went with the rollback
    // and ran again on its own (once in effect).
    const [bad] = await executionsOf(t, ten.tenant, once);
    expect(bad).toMatchObject({ status: 'failed', failed_action_index: 1, actions_successful: 1, actions_failed: 1 });
    expect((await stepsOf(t, ten.tenant, bad!.execution_id)).map((s) => [s.status, s.attempts, s.error_message])).toEqual([
      ['completed', 1, null], ['failed', 1, 'failed after writing (rolled back)'],
    ]);
    expect((await effectsOf(t, ten.tenant, bad!.execution_id)).map((e) => e.data.action_index)).toEqual([0]);
  });

  it('one execution failing among others: the batch runs again guarded, the others complete once and the failed action is not run twice', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const fine = [];
    for (let i = 0; i < 3; i++) fine.push(await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.mixed' }, actions: [{ type: 'record', config: { i } }] }));
    const failing = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.mixed' }, actions: [{ type: 'fail_then_record', retry_attempts: 0 }] });
    await emitTestEvent(t, ten.tenant, 'test.mixed', {});
    await worker.relay.runOnce();
    await worker.runner.runOnce();

    for (const ruleId of fine) {
      const [e] = await executionsOf(t, ten.tenant, ruleId);
      expect(e).toMatchObject({ status: 'completed', attempts: 1 });
      // Whatever ran before the failure in the first, unguarded pass went with its rollback.
      expect(await effectsOf(t, ten.tenant, e!.execution_id)).toHaveLength(1);
      expect(await completedEventsOf(e!.execution_id)).toHaveLength(1);
    }
    await worker.drain();
    // fail_then_record succeeds on its second run: had the guarded pass run it again, it would have completed.
    const [bad] = await executionsOf(t, ten.tenant, failing);
    expect(bad).toMatchObject({ status: 'failed', failed_action_index: 0, actions_failed: 1 });
    expect((await stepsOf(t, ten.tenant, bad!.execution_id)).map((s) => [s.status, s.attempts])).toEqual([['failed', 1]]);
    expect(await effectsOf(t, ten.tenant, bad!.execution_id)).toHaveLength(0);
  });

  it('leaves an execution whose rule is at its concurrency limit to the per-execution path, which holds it back', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, max_concurrent_executions: 1, trigger_config: { event_type: 'test.busy' }, actions: [{ type: 'record' }] });
    const busy = newId();
    await t.database.db.insertInto('automation_executions').values({
      tenant: ten.tenant, execution_id: busy, rule_id: ruleId, trigger_type: 'manual', trigger_key: `manual:${busy}`, trigger_data: JSON.stringify({}),
      actions: JSON.stringify([]), status: 'running', started_at: new Date(),
    }).execute();
    await emitTestEvent(t, ten.tenant, 'test.busy', {});
    await worker.relay.runOnce();
    await worker.runner.runOnce();
    const waiting = (await executionsOf(t, ten.tenant, ruleId)).find((e) => e.execution_id !== busy)!;
    expect(waiting).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await effectsOf(t, ten.tenant, waiting.execution_id)).toHaveLength(0);

    await t.database.db.updateTable('automation_executions').set({ status: 'completed', completed_at: new Date() }).where('tenant', '=', ten.tenant).where('execution_id', '=', busy).execute();
    await worker.drain();
    expect((await executionsOf(t, ten.tenant, ruleId)).find((e) => e.execution_id === waiting.execution_id)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
