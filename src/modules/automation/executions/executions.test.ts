import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { effectsOf, engineParts, executionsOf, FakeActions, ManualWorker, seedRule, stepsOf } from '../../../../test/automation-engine-kit.ts';

let t: TestApp;
let ten: TenantFixture;
let other: TenantFixture;
let tech: Api;
let fakes: FakeActions;
let worker: ManualWorker;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
  other = await makeTenant(t);
  tech = (await makeUser(t, ten.tenant, { role: 'Technician' })).api;
  fakes = new FakeActions();
  worker = new ManualWorker(t, engineParts(t, fakes.options()));
});
afterAll(async () => t.close());

const URL = '/api/v1/automation';
const countRows = async (table: 'automation_executions' | 'automation_execution_logs' | 'jobs', tenant: string) =>
  Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

const manualRule = (seed: Partial<Parameters<typeof seedRule>[2]> = {}) => seedRule(t, ten.tenant, {
  created_by: ten.adminUserId,
  trigger_type: 'manual',
  conditions: [{ field: 'data.priority', operator: 'equals', value: 'high' }],
  actions: [{ type: 'record', config: { ticket: '{{data.ticket_id}}' } }, { type: 'external', config: { text: 'Ticket {{data.ticket_id}}' } }],
  ...seed,
});

describe('POST /api/v1/automation/rules/{id}/execute', () => {
  it('a dry run shows the condition results and the filled-in actions without writing anything', async () => {
    const ruleId = await manualRule({ status: 'inactive' });
    const before = await Promise.all([countRows('automation_executions', ten.tenant), countRows('automation_execution_logs', ten.tenant), countRows('jobs', ten.tenant)]);
    const res = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { dry_run: true, execution_data: { priority: 'high', ticket_id: 'T-1' } });
    expectStatus(res, 200);
    expect(res.json().data).toEqual({
      dry_run: true, matched: true, would_run: true, condition_logic: 'and',
      conditions: [{ field: 'data.priority', operator: 'equals', value: 'high', actual: 'high', passed: true }],
      planned_actions: [{ index: 0, type: 'record', config: { ticket: 'T-1' } }, { index: 1, type: 'external', config: { text: 'Ticket T-1' } }],
    });
    const miss = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { dry_run: true, execution_data: { priority: 'low' } });
    expectStatus(miss, 200);
    expect(miss.json().data).toMatchObject({
      matched: false, would_run: false,
      conditions: [{ actual: 'low', passed: false }],
      planned_actions: [
        { index: 0, type: 'record', config: { ticket: '{{data.ticket_id}}' }, error: 'placeholder data.ticket_id has no value' },
        { index: 1, type: 'external', error: 'placeholder data.ticket_id has no value' },
      ],
    });
    const forced = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { dry_run: true, override_conditions: true });
    expect(forced.json().data).toMatchObject({ matched: false, would_run: true });
    const after = await Promise.all([countRows('automation_executions', ten.tenant), countRows('automation_execution_logs', ten.tenant), countRows('jobs', ten.tenant)]);
    expect(after).toEqual(before);
  });

  it('runs the rule: 202 with the queued execution, which the worker completes as the rule\'s owner', async () => {
    const ruleId = await manualRule();
    const res = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { execution_data: { priority: 'high', ticket_id: 'T-2' } });
    expectStatus(res, 202);
    const execution = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/automation/executions/${execution.execution_id}`);
    expect(execution).toMatchObject({
      rule_id: ruleId, trigger_type: 'manual', status: 'pending', actions_total: 2, created_by: ten.adminUserId, depth: 0,
      trigger_data: { event_type: 'automation.manual', data: { priority: 'high', ticket_id: 'T-2' }, trigger: { type: 'manual', user_id: ten.adminUserId } },
    });
    expect(execution.trigger_key).toMatch(/^manual:[0-9a-f-]{36}$/);
    await worker.drain();
    const get = await ten.admin.get(`${URL}/executions/${execution.execution_id}`);
    expectStatus(get, 200);
    expect(get.json().data).toMatchObject({ status: 'completed', actions_successful: 2 });
    expect((await effectsOf(t, ten.tenant, execution.execution_id)).map((e) => e.data.ticket)).toEqual(['T-2']);
  });

  it('records an execution whose conditions do not match as skipped (nothing runs) unless override_conditions', async () => {
    const ruleId = await manualRule();
    const skipped = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { execution_data: { priority: 'low', ticket_id: 'T-3' } });
    expectStatus(skipped, 202);
    expect(skipped.json().data).toMatchObject({ status: 'skipped', error_message: 'The conditions did not match (override_conditions was false)', actions_successful: 0 });
    const forced = await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { execution_data: { priority: 'low', ticket_id: 'T-3' }, override_conditions: true });
    expectStatus(forced, 202);
    expect(forced.json().data.status).toBe('pending');
    await worker.drain();
    const detail = (await ten.admin.get(`${URL}/executions/${skipped.json().data.execution_id}`)).json().data;
    expect(detail).toMatchObject({ status: 'skipped', steps: [] });
    expect(detail.logs.map((l: { message: string }) => l.message)).toEqual(['Started by hand: 0 of 1 conditions passed (and); skipped (conditions not matched)']);
    expect(await effectsOf(t, ten.tenant, skipped.json().data.execution_id)).toEqual([]);
    expect((await effectsOf(t, ten.tenant, forced.json().data.execution_id)).map((e) => e.data.ticket)).toEqual(['T-3']);
    const forcedLogs = (await ten.admin.get(`${URL}/executions/${forced.json().data.execution_id}`)).json().data.logs;
    expect(forcedLogs[0].message).toBe('Started by hand: 0 of 1 conditions passed (and), conditions overridden');
  });

  it('an Idempotency-Key starts one execution; a draft rule runs, an inactive one is a 422 naming it', async () => {
    const draft = await manualRule({ status: 'draft', conditions: [] });
    const headers = { 'idempotency-key': `run-${randomId()}` };
    const first = await ten.admin.post(`${URL}/rules/${draft}/execute`, {}, headers);
    const second = await ten.admin.post(`${URL}/rules/${draft}/execute`, {}, headers);
    expectStatus(first, 202);
    expect(second.json().data.execution_id).toBe(first.json().data.execution_id);
    expect(first.json().data.trigger_key).toBe(`manual:${ten.adminUserId}:${headers['idempotency-key']}`);
    expect(await executionsOf(t, ten.tenant, draft)).toHaveLength(1);
    const inactive = await manualRule({ status: 'inactive', name: 'Sleeping rule' });
    const res = await ten.admin.post(`${URL}/rules/${inactive}/execute`);
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.message).toContain("'Sleeping rule' is inactive");
    expect(res.json().error.details).toMatchObject({ reason: 'rule_not_runnable', status: 'inactive' });
    expect(await executionsOf(t, ten.tenant, inactive)).toEqual([]);
  });

  it('400 for a bad body or id, 401 without a key, 403 without automation:update, 404 for unknown and other tenants\' rules', async () => {
    const ruleId = await manualRule();
    expectError(await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { colour: 'red' }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { execution_data: [1, 2] }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { dry_run: 'yes' }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/${ruleId}/execute`, { execution_data: { big: 'x'.repeat(70_000) } }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/not-a-uuid/execute`, {}), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(`${URL}/rules/${ruleId}/execute`, {}), 401, 'UNAUTHORIZED');
    expectError(await tech.post(`${URL}/rules/${ruleId}/execute`, {}), 403, 'FORBIDDEN');
    expectError(await ten.admin.post(`${URL}/rules/${randomId()}/execute`, {}), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`${URL}/rules/${ruleId}/execute`, { dry_run: true }), 404, 'NOT_FOUND');
    expect(await executionsOf(t, ten.tenant, ruleId)).toEqual([]);
  });
});

describe('POST /api/v1/automation/rules/bulk-execute', () => {
  it('starts each rule on its own and lists the ones that cannot run', async () => {
    const a = await manualRule({ conditions: [] });
    const b = await manualRule({ conditions: [] });
    const inactive = await manualRule({ status: 'inactive' });
    const unknown = randomId();
    const foreign = await seedRule(t, other.tenant, { created_by: other.adminUserId, trigger_type: 'manual' });
    const res = await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [a, unknown, b, inactive, foreign], execution_data: { ticket_id: 'T-9' } });
    expectStatus(res, 202);
    const { executions, errors } = res.json().data;
    expect(executions.map((e: { rule_id: string; status: string }) => [e.rule_id, e.status])).toEqual([[a, 'pending'], [b, 'pending']]);
    expect(errors).toEqual([
      { rule_id: unknown, code: 'NOT_FOUND', message: `Automation rule '${unknown}' not found` },
      { rule_id: inactive, code: 'UNPROCESSABLE', message: expect.stringContaining('is inactive') },
      { rule_id: foreign, code: 'NOT_FOUND', message: `Automation rule '${foreign}' not found` },
    ]);
    await worker.drain();
    for (const e of executions) expect((await effectsOf(t, ten.tenant, e.execution_id)).map((x) => x.data.ticket)).toEqual(['T-9']);
    expect(await executionsOf(t, other.tenant, foreign)).toEqual([]);
  });

  it('400 for 0, 21 or repeated ids and unknown fields; 401; 403', async () => {
    const a = await manualRule();
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [] }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: Array.from({ length: 21 }, randomId) }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [a, a] }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: ['nope'] }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [a], dry_run: true }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/rules/bulk-execute`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [a] }), 401, 'UNAUTHORIZED');
    expectError(await tech.post(`${URL}/rules/bulk-execute`, { automation_rule_ids: [a] }), 403, 'FORBIDDEN');
    expect(await executionsOf(t, ten.tenant, a)).toEqual([]);
  });
});

describe('GET /api/v1/automation/executions and /{id}', () => {
  it('lists newest first with filters; gets one with its steps and log', async () => {
    const tenant = await makeTenant(t);
    const r1 = await seedRule(t, tenant.tenant, { created_by: tenant.adminUserId, trigger_type: 'manual', actions: [{ type: 'record' }] });
    const r2 = await seedRule(t, tenant.tenant, { created_by: tenant.adminUserId, trigger_type: 'manual', actions: [{ type: 'nope' }] });
    const e1 = (await tenant.admin.post(`${URL}/rules/${r1}/execute`, {})).json().data;
    const e2 = (await tenant.admin.post(`${URL}/rules/${r2}/execute`, {})).json().data;
    await worker.drain();
    const all = await tenant.admin.get(`${URL}/executions`);
    expectStatus(all, 200);
    expect(all.json().pagination).toMatchObject({ page: 1, limit: 25, total: 2 });
    expect(all.json().data.map((e: { execution_id: string }) => e.execution_id)).toEqual([e2.execution_id, e1.execution_id]);
    const failed = await tenant.admin.get(`${URL}/executions?status=failed`);
    expect(failed.json().data.map((e: { execution_id: string }) => e.execution_id)).toEqual([e2.execution_id]);
    const byRule = await tenant.admin.get(`${URL}/executions?rule_id=${r1}&trigger_type=manual&sort=created_at&order=asc`);
    expect(byRule.json().data.map((e: { execution_id: string }) => e.execution_id)).toEqual([e1.execution_id]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await tenant.admin.get(`${URL}/executions?from=${future}`)).json().data).toEqual([]);
    expect((await tenant.admin.get(`${URL}/executions?to=${future}`)).json().pagination.total).toBe(2);
    expect((await tenant.admin.get(`${URL}/executions?trigger_type=event`)).json().data).toEqual([]);

    const detail = await tenant.admin.get(`${URL}/executions/${e2.execution_id}`);
    expectStatus(detail, 200);
    expect(detail.json().data).toMatchObject({
      execution_id: e2.execution_id, rule_id: r2, status: 'failed', failed_action_index: 0, error_message: "Action 0 (nope) failed: unknown action type 'nope'",
      steps: [{ action_index: 0, action_type: 'nope', status: 'failed', attempts: 0, error_message: "unknown action type 'nope'" }],
    });
    expect(detail.json().data.logs.map((l: { level: string; message: string }) => l.level)).toEqual(['info', 'info', 'error', 'error']);
    expect(detail.json().data.logs[0]).toMatchObject({ log_id: expect.any(String), timestamp: expect.any(String), action_index: null, metadata: { conditions: [] } });
  });

  it('400 for bad filters and ids, 401, 403 without automation:read, 404 for unknown and other tenants\' executions', async () => {
    const ruleId = await manualRule({ conditions: [] });
    const id = (await ten.admin.post(`${URL}/rules/${ruleId}/execute`, {})).json().data.execution_id;
    for (const q of ['status=bogus', 'limit=101', 'rule_id=nope', 'from=yesterday', 'sort=rule_name', 'colour=red']) {
      expectError(await ten.admin.get(`${URL}/executions?${q}`), 400, 'VALIDATION_ERROR');
    }
    expectError(await ten.admin.get(`${URL}/executions/nope`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`${URL}/executions`), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).get(`${URL}/executions/${id}`), 401, 'UNAUTHORIZED');
    expectError(await tech.get(`${URL}/executions`), 403, 'FORBIDDEN');
    expectError(await tech.get(`${URL}/executions/${id}`), 403, 'FORBIDDEN');
    expectError(await ten.admin.get(`${URL}/executions/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${URL}/executions/${id}`), 404, 'NOT_FOUND');
    expect((await other.admin.get(`${URL}/executions`)).json().data.some((e: { execution_id: string }) => e.execution_id === id)).toBe(false);
  });
});

describe('POST /api/v1/automation/executions/{id}/retry', () => {
  it('re-runs a failed execution keeping its completed steps; 409 for one that is not failed', async () => {
    const ruleId = await manualRule({ conditions: [], actions: [{ type: 'record', config: { n: 1 } }, { type: 'external' }, { type: 'record', config: { n: 3 } }] });
    fakes.failExternal = 1;
    const id = (await ten.admin.post(`${URL}/rules/${ruleId}/execute`, {})).json().data.execution_id;
    await worker.drain();
    expect((await stepsOf(t, ten.tenant, id)).map((s) => s.status)).toEqual(['completed', 'failed', 'skipped']);

    const retry = await ten.admin.post(`${URL}/executions/${id}/retry`);
    expectStatus(retry, 202);
    expect(retry.json().data).toMatchObject({ status: 'pending', failed_action_index: null, error_message: null, completed_at: null });
    expect(retry.json().data.steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'pending', 'pending']);
    expectError(await ten.admin.post(`${URL}/executions/${id}/retry`), 409, 'CONFLICT');
    await worker.drain();
    const done = (await ten.admin.get(`${URL}/executions/${id}`)).json().data;
    expect(done).toMatchObject({ status: 'completed', actions_successful: 3, actions_failed: 0, attempts: 2 });
    expect((await effectsOf(t, ten.tenant, id)).map((e) => e.data.n)).toEqual([1, 3]);
    expect(done.logs.some((l: { message: string }) => l.message === 'Retry requested (was failed); completed steps are kept')).toBe(true);
    const again = await ten.admin.post(`${URL}/executions/${id}/retry`, {});
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toContain('this one is completed');
  });

  it('400, 401, 403, 404', async () => {
    const ruleId = await manualRule({ conditions: [], actions: [{ type: 'nope' }] });
    const id = (await ten.admin.post(`${URL}/rules/${ruleId}/execute`, {})).json().data.execution_id;
    await worker.drain();
    expectError(await ten.admin.post(`${URL}/executions/${id}/retry`, { force: true }), 400, 'VALIDATION_ERROR');
    expectError(await ten.admin.post(`${URL}/executions/nope/retry`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(`${URL}/executions/${id}/retry`), 401, 'UNAUTHORIZED');
    expectError(await tech.post(`${URL}/executions/${id}/retry`), 403, 'FORBIDDEN');
    expectError(await ten.admin.post(`${URL}/executions/${randomId()}/retry`), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`${URL}/executions/${id}/retry`), 404, 'NOT_FOUND');
    expect((await ten.admin.get(`${URL}/executions/${id}`)).json().data.status).toBe('failed');
  });
});
