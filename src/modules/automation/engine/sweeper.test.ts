import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, type TenantFixture } from '../../../../test/factories.ts';
import { emitTestEvent, engineParts, executionsOf, FakeActions, logsOf, ManualWorker, seedRule, stepsOf } from '../../../../test/automation-engine-kit.ts';
import { EXECUTE_JOB } from './execute.ts';
import { sweepAbandonedExecutions } from './sweeper.ts';

let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
});
afterAll(async () => t.close());

const jobOf = (executionId: string) =>
  t.database.db.selectFrom('jobs').selectAll().where('tenant', '=', ten.tenant).where('name', '=', EXECUTE_JOB)
    .where((eb) => eb(eb.ref('payload', '->>').key('execution_id' as never), '=', executionId)).executeTakeFirstOrThrow();

describe('the sweep of abandoned executions', () => {
  it('fails an execution whose job died and that nothing touched for 15 minutes; leaves queued and recent ones alone', async () => {
    const fakes = new FakeActions();
    const worker = new ManualWorker(t, engineParts(t, fakes.options()));
    const ruleId = await seedRule(t, ten.tenant, { created_by: ten.adminUserId, trigger_config: { event_type: 'test.sweep' }, actions: [{ type: 'record' }, { type: 'record' }] });
    for (let n = 0; n < 3; n++) await emitTestEvent(t, ten.tenant, 'test.sweep', { n });
    await worker.relay.runOnce();
    const [dead, queued, recent] = await executionsOf(t, ten.tenant, ruleId);
    const old = new Date(Date.now() - 16 * 60_000);
    // dead: its job gave up (with one step done); queued: old but its job still waits; recent: dead job, but touched a minute ago.
    await t.database.db.insertInto('automation_execution_steps').values([0, 1].map((i) => ({ tenant: ten.tenant, execution_id: dead!.execution_id, action_index: i, action_type: 'record', status: i === 0 ? 'completed' as const : 'running' as const }))).execute();
    for (const [e, updatedAt, jobStatus] of [[dead!, old, 'dead'], [queued!, old, 'pending'], [recent!, new Date(Date.now() - 60_000), 'dead']] as const) {
      await t.database.db.updateTable('automation_executions').set({ status: e === dead ? 'running' : 'pending', updated_at: updatedAt, started_at: e === dead ? old : null })
        .where('tenant', '=', ten.tenant).where('execution_id', '=', e.execution_id).execute();
      const job = await jobOf(e.execution_id);
      await t.database.db.updateTable('jobs').set({ status: jobStatus, last_error: jobStatus === 'dead' ? 'connection reset' : null, finished_at: jobStatus === 'dead' ? new Date() : null })
        .where('tenant', '=', ten.tenant).where('job_id', '=', job.job_id).execute();
    }

    expect(await sweepAbandonedExecutions(t.database.db)).toBe(1);
    const after = new Map((await executionsOf(t, ten.tenant, ruleId)).map((e) => [e.execution_id, e]));
    const message = 'The worker gave up on this execution: its job failed on every attempt (last error: connection reset)';
    expect(after.get(dead!.execution_id)).toMatchObject({ status: 'failed', error_message: message, actions_successful: 1 });
    expect(after.get(dead!.execution_id)!.duration_ms).toBeGreaterThanOrEqual(16 * 60_000 - 1000);
    expect((await stepsOf(t, ten.tenant, dead!.execution_id)).map((s) => s.status)).toEqual(['completed', 'skipped']);
    expect((await logsOf(t, ten.tenant, dead!.execution_id)).at(-1)).toMatchObject({ level: 'error', message });
    const failedEvents = await t.database.db.selectFrom('events').select(['payload', 'cause']).where('tenant', '=', ten.tenant)
      .where('event_type', '=', 'automation.execution.failed').where('aggregate_id', '=', dead!.execution_id).execute();
    expect(failedEvents).toMatchObject([{ payload: { execution_id: dead!.execution_id, rule_id: ruleId, status: 'failed', error_message: message }, cause: { execution_id: dead!.execution_id, rule_ids: [ruleId], depth: 1 } }]);
    expect(after.get(queued!.execution_id)).toMatchObject({ status: 'pending' });
    expect(after.get(recent!.execution_id)).toMatchObject({ status: 'pending' });

    // Swept once: a second sweep finds nothing, and the failed execution can be retried like any other.
    expect(await sweepAbandonedExecutions(t.database.db)).toBe(0);
    const retry = await ten.admin.post(`/api/v1/automation/executions/${dead!.execution_id}/retry`);
    expect(retry.statusCode).toBe(202);
  });
});
