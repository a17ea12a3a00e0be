import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../../test/factories.ts';
import { expectError, expectStatus, makeClient } from '../../../../test/client-factories.ts';
import { makeTicket, prioritiesOf } from '../../../../test/ticket-factories.ts';
import { engineParts, executionsOf, logsOf, ManualWorker } from '../../../../test/automation-engine-kit.ts';
import { makeProject } from '../../../../test/project-factories.ts';
import { loadOwnerActor } from '../../../platform/auth/owner-actor.ts';
import { newId } from '../../../platform/ids.ts';
import { loadCurrent } from './current.ts';
import { EXECUTE_JOB } from './execute.ts';

/**
 * Delayed event rules and conditions on current.*: the built-in "escalate unassigned high-priority tickets
 * after an hour", used through the API, runs an hour after each ticket and escalates only those still open
 * and unassigned then.
 */

let t: TestApp;
let ten: TenantFixture;
beforeAll(async () => {
  t = await buildTestApp();
  ten = await makeTenant(t);
});
afterAll(async () => t.close());

const ESCALATE = '01937a00-0000-7000-8000-00000000a001';
const URL = '/api/v1/automation';

describe('delay_minutes and current.*', () => {
  it('escalates, an hour later, only the high-priority tickets still open and unassigned', async () => {
    const team = (await ten.admin.post('/api/v1/teams', { team_name: 'Escalations' })).json().data.team_id as string;
    const used = await ten.admin.post(`${URL}/templates/${ESCALATE}/use`, { variables: { escalation_team_id: team } });
    expectStatus(used, 201);
    const ruleId = used.json().data.rule_id as string;
    expectStatus(await ten.admin.put(`${URL}/rules/${ruleId}`, { status: 'active' }), 200);

    const client = await makeClient(ten.admin);
    const priorities = await prioritiesOf(ten.admin);
    const tech = await makeUser(t, ten.tenant, { role: 'Technician' });
    const left = await makeTicket(ten.admin, client.client_id, { title: 'Server down', priority_id: priorities.High!.priority_id });
    const taken = await makeTicket(ten.admin, client.client_id, { title: 'VPN down', priority_id: priorities.High!.priority_id });
    await makeTicket(ten.admin, client.client_id, { title: 'Mouse', priority_id: priorities.Low!.priority_id });

    let now = Date.now();
    const worker = new ManualWorker(t, engineParts(t), { now: () => new Date(now) });
    await worker.drain();
    const waiting = await executionsOf(t, ten.tenant, ruleId);
    expect(waiting.map((e) => e.status)).toEqual(['pending', 'pending']);
    const jobs = await t.database.db.selectFrom('jobs').select(['run_at']).where('tenant', '=', ten.tenant).where('name', '=', EXECUTE_JOB).execute();
    for (const job of jobs) expect(job.run_at.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect((await logsOf(t, ten.tenant, waiting[0]!.execution_id))[0]!.message).toContain('runs 60 minutes after it; the conditions on current.* are checked when it runs');

    // Within the hour someone takes the second ticket.
    expectStatus(await ten.admin.put(`/api/v1/tickets/${taken.ticket_id}`, { assigned_to: tech.userId }), 200);
    now += 61 * 60_000;
    await worker.drain();

    const byTicket = new Map((await executionsOf(t, ten.tenant, ruleId)).map((e) => [(e.trigger_data as { data: { ticket_id: string } }).data.ticket_id, e]));
    expect(byTicket.get(left.ticket_id)).toMatchObject({ status: 'completed', actions_successful: 2 });
    expect(byTicket.get(taken.ticket_id)).toMatchObject({ status: 'skipped', actions_successful: 0 });
    const skippedLogs = await logsOf(t, ten.tenant, byTicket.get(taken.ticket_id)!.execution_id);
    expect(skippedLogs.map((l) => l.message)).toContain('Skipped: the conditions no longer hold as it runs: 3 of 4 conditions passed (and)');

    const escalated = (await ten.admin.get(`/api/v1/tickets/${left.ticket_id}`)).json().data;
    expect(escalated).toMatchObject({ assigned_team_id: team, assigned_to: null });
    const comments = (await ten.admin.get(`/api/v1/tickets/${left.ticket_id}/comments`)).json().data as { comment_text: string; is_internal: boolean }[];
    expect(comments).toMatchObject([{ comment_text: 'Escalated automatically: a High ticket nobody took within an hour.', is_internal: true }]);
    expect((await ten.admin.get(`/api/v1/tickets/${taken.ticket_id}`)).json().data).toMatchObject({ assigned_to: tech.userId, assigned_team_id: null });
  });

  it('validates delay_minutes and where current.* may appear', async () => {
    const base = { name: 'Current', trigger_type: 'event', actions: [{ type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'x' } }] };
    const ok = await ten.admin.post(`${URL}/rules`, { ...base, trigger_config: { event_type: 'ticket.updated', delay_minutes: 10080 }, conditions: [{ field: 'current.is_closed', operator: 'equals', value: false }] });
    expectStatus(ok, 201);
    expect(ok.json().data.trigger_config).toEqual({ event_type: 'ticket.updated', filters: [], delay_minutes: 10080 });
    for (const delay of [0, 10081, 1.5]) {
      expectError(await ten.admin.post(`${URL}/rules`, { ...base, trigger_config: { event_type: 'ticket.updated', delay_minutes: delay } }), 400, 'VALIDATION_ERROR');
    }
    const inFilter = await ten.admin.post(`${URL}/rules`, { ...base, trigger_config: { event_type: 'ticket.updated', filters: [{ field: 'current.is_closed', operator: 'equals', value: false }] } });
    expectError(inFilter, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(inFilter.json().error)).toContain('must start with one of event_type, data, changes, headers, trigger');
    const onSchedule = await ten.admin.post(`${URL}/rules`, { ...base, trigger_type: 'schedule', trigger_config: { cron: '0 9 * * *' }, conditions: [{ field: 'current.x', operator: 'exists' }] });
    expectError(onSchedule, 400, 'VALIDATION_ERROR');
    const noRecord = await ten.admin.post(`${URL}/rules`, { ...base, trigger_config: { event_type: 'client.created' }, conditions: [{ field: 'current.client_name', operator: 'exists' }] });
    expectError(noRecord, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(noRecord.json().error)).toContain("'client.created' events have none it can read (ticket.*, project.* events do)");
    const inPlaceholder = await ten.admin.post(`${URL}/rules`, { ...base, trigger_config: { event_type: 'ticket.updated' }, actions: [{ type: 'add_ticket_comment', config: { ticket_id: '{{current.ticket_id}}', comment_text: 'x' } }] });
    expectError(inPlaceholder, 400, 'VALIDATION_ERROR');
  });

  it('reads a project as GET shows it to the owner; a record of another tenant, a deleted one or an unknown type reads as absent', async () => {
    const project = await makeProject(ten.admin);
    const owner = (await loadOwnerActor(t.database.db, ten.tenant, ten.adminUserId, newId()))!;
    expect(await loadCurrent(t.database.db, owner, 'project', project.project_id)).toMatchObject({ project_id: project.project_id, project_name: project.project_name });
    const other = await makeTenant(t);
    const foreign = await makeProject(other.admin);
    expect(await loadCurrent(t.database.db, owner, 'project', foreign.project_id)).toBeUndefined();
    expect(await loadCurrent(t.database.db, owner, 'ticket', newId())).toBeUndefined();
    expect(await loadCurrent(t.database.db, owner, 'client', newId())).toBeUndefined();
    expect(await loadCurrent(t.database.db, owner, '__proto__', newId())).toBeUndefined();
  });
});
