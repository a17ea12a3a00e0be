import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTemplate, ok, rowCount, taskStatuses, templateBody, type Json } from '../../../../test/project-extras-kit.ts';
import { addDays } from './templates.apply.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let viewer: Api;
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  viewer = (await makeUser(t, a.tenant, { role: 'Viewer' })).api;
});
afterAll(async () => t.close());

const applyUrl = (id: string) => `/api/projects/templates/${id}/apply`;

/** The tenant's outbox events (type and data) since `after` (an event_id), oldest first. */
async function eventsSince(tenant: string, after = '00000000-0000-0000-0000-000000000000') {
  const rows = await t.database.db.selectFrom('events').select(['event_id', 'event_type', 'aggregate_type', 'aggregate_id', 'payload'])
    .where('tenant', '=', tenant).where('event_id', '>', after).orderBy('event_id').execute();
  return rows.map((r) => ({ ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { data: Record<string, unknown> } }));
}
const lastEventId = async (tenant: string) => (await eventsSince(tenant)).at(-1)?.event_id;

describe('addDays', () => {
  it('adds calendar days across month and year ends', () => {
    expect(addDays('2026-02-27', 2)).toBe('2026-03-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-29', 0)).toBe('2026-03-29');
  });
});

describe('POST /api/projects/templates/{templateId}/apply', () => {
  it('creates the project in one go: phases dated from start_date, tasks due by offset, checklists, statuses; events as single writes', async () => {
    const statuses = await taskStatuses(t, a.tenant);
    const owner = await makeUser(t, a.tenant, { role: 'Technician' });
    const client = await makeClient(a.admin);
    const tpl = await makeTemplate(a.admin, {
      status_mappings: [{ task_status_id: statuses['To Do'] }, { task_status_id: statuses['In Progress'] }, { task_status_id: statuses.Done }],
      phases: [
        {
          phase_name: 'Discovery', start_offset_days: 0, duration_days: 5,
          tasks: [
            { task_name: 'Kick-off', estimated_hours: 1.5, due_offset_days: 1, assigned_to: owner.userId, task_status_id: statuses['In Progress'], checklist: [{ item_name: 'Agenda' }, { item_name: 'Invite', completed: true }] },
            { task_name: 'Inventory', estimated_hours: 4, task_status_id: statuses.Done },
          ],
        },
        { phase_name: 'Rollout', start_offset_days: 5, duration_days: 10, tasks: [{ task_name: 'Deploy', due_offset_days: 9 }] },
      ],
    });
    const mark = await lastEventId(a.tenant);
    const res = await a.admin.post(applyUrl(tpl.template_id), { project_name: ' Acme rollout ', client_id: client.client_id, start_date: '2026-04-01', assigned_to: owner.userId });
    const project = ok<Json>(res, 201);
    expect(res.headers.location).toBe(`/api/v1/projects/${project.project_id}`);
    expect(project).toMatchObject({ project_name: 'Acme rollout', client_id: client.client_id, assigned_to: owner.userId, start_date: '2026-04-01', end_date: '2026-04-15', phase_count: 2, task_count: 3, completed_task_count: 1 });

    const phases = ok<Json[]>(await a.admin.get(`/api/v1/projects/${project.project_id}/phases`));
    expect(phases.map((p) => [p.phase_name, p.start_date, p.end_date, p.position])).toEqual([['Discovery', '2026-04-01', '2026-04-05', 1], ['Rollout', '2026-04-06', '2026-04-15', 2]]);
    const tasks = ok<Json[]>(await a.admin.get(`/api/v1/projects/${project.project_id}/tasks?limit=100`));
    const byName = Object.fromEntries(tasks.map((k) => [k.task_name, k]));
    expect(byName['Kick-off']).toMatchObject({ due_date: '2026-04-02', estimated_hours: 1.5, assigned_to: owner.userId, status_name: 'In Progress', checklist_total: 2, checklist_completed: 1 });
    expect(byName.Inventory).toMatchObject({ due_date: null, status_name: 'Done', is_completed: true, assigned_to: null });
    expect(byName.Deploy).toMatchObject({ due_date: '2026-04-15', status_name: 'To Do' });
    const checklist = ok<Json[]>(await a.admin.get(`/api/v1/projects/tasks/${byName['Kick-off'].task_id}/checklist`));
    expect(checklist.map((c) => [c.item_name, c.completed])).toEqual([['Agenda', false], ['Invite', true]]);
    const mappings = ok<Json[]>(await a.admin.get(`/api/v1/projects/${project.project_id}/task-status-mappings`));
    expect(mappings.map((m) => m.status_name)).toEqual(['To Do', 'In Progress', 'Done']);

    const events = await eventsSince(a.tenant, mark);
    expect(events.map((e) => e.event_type)).toEqual(['project.created', 'project.task.created', 'project.task.created', 'project.task.created']);
    expect(events[0]!.payload.data).toMatchObject({ project_id: project.project_id, project_name: 'Acme rollout', client_id: client.client_id });
    expect(events.slice(1).map((e) => [e.payload.data.task_name, e.payload.data.project_id])).toEqual([['Kick-off', project.project_id], ['Inventory', project.project_id], ['Deploy', project.project_id]]);
    expect(ok<Json>(await a.admin.get(`/api/projects/templates/${tpl.template_id}`)).use_count).toBe(1);
  });

  it('assignment_option none drops assignees, all also copies teams; hints of inactive users are dropped', async () => {
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const team = ok<{ team_id: string }>(await a.admin.post('/api/v1/teams', { team_name: `Team ${randomId().slice(0, 8)}` }), 201);
    const tpl = await makeTemplate(a.admin, { phases: [{ phase_name: 'P', tasks: [{ task_name: 'T', assigned_to: tech.userId, assigned_team_id: team.team_id }] }] });
    const taskOf = async (body: Record<string, unknown>) => {
      const p = ok<Json>(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'X', ...body }), 201);
      return ok<Json[]>(await a.admin.get(`/api/v1/projects/${p.project_id}/tasks`))[0];
    };
    expect(await taskOf({})).toMatchObject({ assigned_to: tech.userId, assigned_team_id: null });
    expect(await taskOf({ assignment_option: 'none' })).toMatchObject({ assigned_to: null, assigned_team_id: null });
    expect(await taskOf({ assignment_option: 'all' })).toMatchObject({ assigned_to: tech.userId, assigned_team_id: team.team_id });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', a.tenant).where('user_id', '=', tech.userId).execute();
    expect(await taskOf({ assignment_option: 'all' })).toMatchObject({ assigned_to: null, assigned_team_id: team.team_id });
  });

  it('without start_date the phases and tasks are undated', async () => {
    const tpl = await makeTemplate(a.admin);
    const project = ok<Json>(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'Undated' }), 201);
    expect(project).toMatchObject({ start_date: null, end_date: null, task_count: 3 });
    const tasks = ok<Json[]>(await a.admin.get(`/api/v1/projects/${project.project_id}/tasks`));
    expect(tasks.every((k) => k.due_date === null)).toBe(true);
  });

  it('400 for a bad body or a bad reference, and nothing is created', async () => {
    const tpl = await makeTemplate(a.admin);
    const projects = await rowCount(t, 'projects', a.tenant);
    const events = await rowCount(t, 'events', a.tenant);
    expectError(await a.admin.post(applyUrl(tpl.template_id), {}), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(applyUrl(tpl.template_id), { project_name: '  ' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'x', assignment_option: 'some' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'x', start_date: '2026-02-30x' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'x', client_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'x', assigned_to: randomId() }), 400, 'VALIDATION_ERROR');
    expect(await rowCount(t, 'projects', a.tenant)).toBe(projects);
    expect(await rowCount(t, 'events', a.tenant)).toBe(events);
    expect(ok<Json>(await a.admin.get(`/api/projects/templates/${tpl.template_id}`)).use_count).toBe(0);
  });

  it('401, 403 (no project:create, client-portal keys), 404 (unknown, another tenant’s)', async () => {
    const tpl = await makeTemplate(a.admin);
    expectError(await anonymous(t).post(applyUrl(tpl.template_id), { project_name: 'x' }), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(applyUrl(tpl.template_id), { project_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.post(applyUrl(randomId()), { project_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.post(applyUrl(tpl.template_id), { project_name: 'x' }), 404, 'NOT_FOUND');
    expect(await rowCount(t, 'projects', b.tenant)).toBe(0);
  });

  it('a template body with status mappings outside the tenant is refused; a template can be applied many times', async () => {
    const statuses = await taskStatuses(t, b.tenant);
    expectError(await a.admin.post('/api/projects/templates', templateBody({ status_mappings: [{ task_status_id: statuses['To Do'] }] })), 400, 'VALIDATION_ERROR');
    const tpl = await makeTemplate(a.admin);
    const first = ok<Json>(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'First' }), 201);
    const second = ok<Json>(await a.admin.post(applyUrl(tpl.template_id), { project_name: 'Second' }), 201);
    expect(first.project_number).not.toBe(second.project_number);
    expect(ok<Json>(await a.admin.get(`/api/projects/templates/${tpl.template_id}`)).use_count).toBe(2);
  });
});
