import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, mappingsOf, type TaskJson } from '../../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

async function namesIn(api: Api, projectId: string, phaseId: string): Promise<string[]> {
  const res = await api.get(`/api/v1/projects/${projectId}/phases/${phaseId}/tasks`);
  expectStatus(res, 200);
  const tasks = res.json().data as TaskJson[];
  expect(tasks.map((x) => x.position)).toEqual(tasks.map((_, i) => i + 1));
  return tasks.map((x) => x.task_name);
}

async function setup() {
  const f = await makeTenant(t);
  const project = await makeProject(f.admin);
  const phase = await makePhase(f.admin, project.project_id, { phase_name: 'One' });
  const mappings = await mappingsOf(f.admin, project.project_id);
  return { ...f, project, phase, mappings };
}

describe(`project tasks (${engine})`, () => {
  it('creates a task with defaults, and with every field (hours in hours)', async () => {
    const { admin, tenant, project, phase, mappings } = await setup();
    const res = await admin.post(`/api/v1/projects/${project.project_id}/phases/${phase.phase_id}/tasks`, { task_name: ' Wireframes ' });
    expectStatus(res, 201);
    const task = res.json().data as TaskJson;
    expect(res.headers.location).toBe(`/api/v1/projects/tasks/${task.task_id}`);
    expect(task).toMatchObject({
      project_id: project.project_id, phase_id: phase.phase_id, phase_name: 'One', task_name: 'Wireframes',
      status_mapping_id: mappings['To Do']!.status_mapping_id, status_id: mappings['To Do']!.status_id, status_name: 'To Do',
      is_closed: false, is_completed: false, completed_at: null, estimated_hours: null, actual_hours: 0, position: 1, checklist_total: 0, checklist_completed: 0,
    });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Crew' })).json().data;
    const priority = (await admin.get('/api/v1/priorities')).json().data.find((p: { priority_name: string }) => p.priority_name === 'High');
    const full = await makeTask(admin, project.project_id, phase.phase_id, {
      task_name: 'Build', description: 'md', status_mapping_id: mappings['In Progress']!.status_mapping_id, assigned_to: tech.userId,
      assigned_team_id: team.team_id, estimated_hours: 7.5, actual_hours: 0.25, due_date: '2026-05-01', priority_id: priority.priority_id, position: 1,
    });
    expect(full).toMatchObject({
      description: 'md', status_name: 'In Progress', assigned_to: tech.userId, assigned_to_name: 'Test User', assigned_team_id: team.team_id,
      assigned_team_name: 'Crew', estimated_hours: 7.5, actual_hours: 0.25, due_date: '2026-05-01', priority_id: priority.priority_id, priority_name: 'High', position: 1,
    });
    expect(await namesIn(admin, project.project_id, phase.phase_id)).toEqual(['Build', 'Wireframes']);
    const row = await t.database.db.selectFrom('project_tasks').select(['estimated_hours', 'actual_hours']).where('task_id', '=', full.task_id).executeTakeFirstOrThrow();
    expect([Number(row.estimated_hours), Number(row.actual_hours)]).toEqual([7.5, 0.25]);
    const done = await makeTask(admin, project.project_id, phase.phase_id, { status_mapping_id: mappings.Done!.status_mapping_id });
    expect(done.is_completed).toBe(true);
    expect(done.completed_at).not.toBeNull();
    const got = await admin.get(`/api/v1/projects/tasks/${full.task_id}`);
    expectStatus(got, 200);
    expect(got.json().data).toEqual(full);
    expect(got.headers.etag).toBeDefined();
  });

  it('PUT completes and reopens with the status, reorders, and moves to another phase of the same project only', async () => {
    const { admin, project, phase, mappings } = await setup();
    const two = await makePhase(admin, project.project_id, { phase_name: 'Two' });
    const a = await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'A' });
    await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'B' });
    const c = await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'C' });
    const completed = (await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { status_mapping_id: mappings.Done!.status_mapping_id })).json().data;
    expect(completed).toMatchObject({ is_closed: true, is_completed: true, status_name: 'Done' });
    const reopened = (await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { status_mapping_id: mappings['To Do']!.status_mapping_id })).json().data;
    expect(reopened).toMatchObject({ is_completed: false, completed_at: null });
    expectStatus(await admin.put(`/api/v1/projects/tasks/${c.task_id}`, { position: 1 }), 200);
    expect(await namesIn(admin, project.project_id, phase.phase_id)).toEqual(['C', 'A', 'B']);
    const moved = (await admin.put(`/api/v1/projects/tasks/${c.task_id}`, { phase_id: two.phase_id })).json().data;
    expect(moved).toMatchObject({ phase_id: two.phase_id, phase_name: 'Two', position: 1 });
    expect(await namesIn(admin, project.project_id, phase.phase_id)).toEqual(['A', 'B']);
    expect(await namesIn(admin, project.project_id, two.phase_id)).toEqual(['C']);
    const elsewhere = await makeProject(admin);
    const foreignPhase = await makePhase(admin, elsewhere.project_id);
    expectError(await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { phase_id: foreignPhase.phase_id }), 400, 'VALIDATION_ERROR');
    const foreignMapping = (await mappingsOf(admin, elsewhere.project_id)).Done!;
    expectError(await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { status_mapping_id: foreignMapping.status_mapping_id }), 400, 'VALIDATION_ERROR');
    expect((await admin.get(`/api/v1/projects/tasks/${a.task_id}`)).json().data).toMatchObject({ phase_id: phase.phase_id, status_name: 'To Do' });
  });

  it('If-Match on PUT and DELETE; DELETE closes the gap', async () => {
    const { admin, project, phase } = await setup();
    const a = await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'A' });
    const b = await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'B' });
    const etag = (await admin.get(`/api/v1/projects/tasks/${a.task_id}`)).headers.etag as string;
    expectError(await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { task_name: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.put(`/api/v1/projects/tasks/${a.task_id}`, { task_name: 'A2' }, { 'if-match': etag }), 200);
    expectError(await admin.delete(`/api/v1/projects/tasks/${a.task_id}`, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect((await admin.delete(`/api/v1/projects/tasks/${a.task_id}`)).statusCode).toBe(204);
    expect(await namesIn(admin, project.project_id, phase.phase_id)).toEqual(['B']);
    expect((await admin.get(`/api/v1/projects/tasks/${b.task_id}`)).json().data.position).toBe(1);
    expectError(await admin.get(`/api/v1/projects/tasks/${a.task_id}`), 404, 'NOT_FOUND');
  });

  it('lists a project\'s tasks with filters and paging', async () => {
    const { admin, tenant, project, phase, mappings } = await setup();
    const two = await makePhase(admin, project.project_id, { phase_name: 'Two' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    await makeTask(admin, project.project_id, two.phase_id, { task_name: 'T2' });
    await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'T1', assigned_to: tech.userId });
    await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'Done1', status_mapping_id: mappings.Done!.status_mapping_id });
    const names = async (q: string) => {
      const res = await admin.get(`/api/v1/projects/${project.project_id}/tasks${q}`);
      expectStatus(res, 200);
      return (res.json().data as TaskJson[]).map((x) => x.task_name);
    };
    expect(await names('')).toEqual(['T1', 'Done1', 'T2']);
    expect(await names(`?phase_id=${two.phase_id}`)).toEqual(['T2']);
    expect(await names(`?assigned_to=${tech.userId}`)).toEqual(['T1']);
    expect(await names('?is_completed=true')).toEqual(['Done1']);
    expect(await names('?is_completed=false&sort=task_name&order=desc')).toEqual(['T2', 'T1']);
    expect(await names(`?status_mapping_id=${mappings.Done!.status_mapping_id}`)).toEqual(['Done1']);
    const page = (await admin.get(`/api/v1/projects/${project.project_id}/tasks?limit=1&page=3`)).json();
    expect(page.pagination).toMatchObject({ total: 3, totalPages: 3, hasNext: false, hasPrev: true });
    for (const q of ['?is_completed=maybe', '?sort=nope', '?limit=101', '?phase_id=x', '?unknown=1']) expectError(await admin.get(`/api/v1/projects/${project.project_id}/tasks${q}`), 400, 'VALIDATION_ERROR');
  });

  it('400 for bad task bodies', async () => {
    const { admin, project, phase } = await setup();
    const base = `/api/v1/projects/${project.project_id}/phases/${phase.phase_id}/tasks`;
    const task = await makeTask(admin, project.project_id, phase.phase_id);
    const portalish = await makeUser(t, (await makeTenant(t)).tenant, {});
    const bad: Record<string, unknown>[] = [
      {}, { task_name: '  ' }, { task_name: 'x', tags: ['a'] }, { task_name: 'x', estimated_hours: -1 }, { task_name: 'x', actual_hours: 1.001 },
      { task_name: 'x', due_date: '2026-13-01' }, { task_name: 'x', status_mapping_id: randomId() }, { task_name: 'x', priority_id: randomId() },
      { task_name: 'x', assigned_to: randomId() }, { task_name: 'x', assigned_to: portalish.userId }, { task_name: 'x', assigned_team_id: randomId() }, { task_name: 'x', position: 0 },
    ];
    for (const body of bad) expectError(await admin.post(base, body), 400, 'VALIDATION_ERROR');
    for (const body of [{}, { task_name: '' }, { phase_id: randomId() }, { estimated_hours: 'many' }, { completed_at: '2026-01-01T00:00:00.000Z' }]) {
      expectError(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.get('/api/v1/projects/tasks/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expect(await namesIn(admin, project.project_id, phase.phase_id)).toEqual([task.task_name]);
  });

  it('401, 403 and 404 (unknown ids, a phase of another project, another tenant)', async () => {
    const { admin, tenant, project, phase } = await setup();
    const task = await makeTask(admin, project.project_id, phase.phase_id, { task_name: 'Kept' });
    const other = await makeProject(admin);
    const create = `/api/v1/projects/${project.project_id}/phases/${phase.phase_id}/tasks`;
    const one = `/api/v1/projects/tasks/${task.task_id}`;
    const anon = anonymous(t);
    for (const res of [await anon.get(create), await anon.post(create, { task_name: 'x' }), await anon.get(one), await anon.put(one, { task_name: 'x' }), await anon.delete(one), await anon.get(`/api/v1/projects/${project.project_id}/tasks`)]) {
      expect(res.statusCode).toBe(401);
    }
    const viewer = (await makeUser(t, tenant, { role: 'Viewer' })).api;
    expectStatus(await viewer.get(one), 200);
    expectError(await viewer.post(create, { task_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.put(one, { task_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(one), 403, 'FORBIDDEN');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectStatus(await tech.put(one, { description: 'tech note' }), 200);
    expectError(await tech.delete(one), 403, 'FORBIDDEN');
    const nobody = (await makeUser(t, tenant, {})).api;
    expectError(await nobody.get(one), 403, 'FORBIDDEN');
    expectError(await nobody.get(`/api/v1/projects/${project.project_id}/tasks`), 403, 'FORBIDDEN');

    expectError(await admin.get(`/api/v1/projects/tasks/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/v1/projects/tasks/${randomId()}`, { task_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/projects/tasks/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/projects/${randomId()}/tasks`), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/projects/${project.project_id}/phases/${randomId()}/tasks`, { task_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.post(`/api/v1/projects/${other.project_id}/phases/${phase.phase_id}/tasks`, { task_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/projects/${other.project_id}/phases/${phase.phase_id}/tasks`), 404, 'NOT_FOUND');
    const b = await makeTenant(t);
    for (const res of [await b.admin.get(one), await b.admin.put(one, { task_name: 'Hijacked' }), await b.admin.delete(one), await b.admin.post(create, { task_name: 'x' }), await b.admin.get(create), await b.admin.get(`/api/v1/projects/${project.project_id}/tasks`)]) {
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await admin.get(one)).json().data.task_name).toBe('Kept');
  });
});
