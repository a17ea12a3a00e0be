import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, makeContact, randomId, tombstone } from '../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, mappingsOf, projectStatuses, type ProjectJson } from '../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe(`projects CRUD (${engine})`, () => {
  it('maps every task status of the tenant, in the statuses\' order, however many there are', async () => {
    const { tenant, admin } = await makeTenant(t);
    // Past two statements' worth of ids (insertDefaultMappings sends 32 at a time): 3 seeded + 67 = 70.
    const extra = Array.from({ length: 67 }, (_, i) => ({ tenant, task_status_id: randomId(), name: `Stage ${String(i + 1).padStart(2, '0')}`, order_number: 100 + i }));
    await t.database.db.insertInto('task_statuses').values(extra).execute();
    const statuses = await t.database.db.selectFrom('task_statuses').select(['task_status_id']).where('tenant', '=', tenant).orderBy('order_number').orderBy('task_status_id').execute();
    expect(statuses).toHaveLength(70);
    const project = await makeProject(admin);
    const mappings = await t.database.db.selectFrom('project_task_status_mappings').select(['status_mapping_id', 'task_status_id', 'display_order'])
      .where('tenant', '=', tenant).where('project_id', '=', project.project_id).orderBy('display_order').execute();
    expect(mappings.map((m) => [m.task_status_id, m.display_order])).toEqual(statuses.map((s, i) => [s.task_status_id, i + 1]));
    expect(new Set(mappings.map((m) => m.status_mapping_id)).size).toBe(70);
    expect(Object.keys(await mappingsOf(admin, project.project_id))).toHaveLength(70);
  });

  it('creates a project with only project_name: number, default status, empty, with task status mappings at once', async () => {
    const { admin, adminUserId } = await makeTenant(t);
    const statuses = await projectStatuses(admin);
    const res = await admin.post('/api/v1/projects', { project_name: '  Website relaunch  ' });
    expectStatus(res, 201);
    const p = res.json().data as ProjectJson;
    expect(res.headers.location).toBe(`/api/v1/projects/${p.project_id}`);
    expect(res.headers.etag).toBeDefined();
    expect(p).toMatchObject({
      project_number: 'P-000001',
      project_name: 'Website relaunch',
      status_id: statuses.Planning!.status_id,
      status_name: 'Planning',
      is_closed: false,
      client_id: null,
      budgeted_hours: null,
      actual_hours: 0,
      phase_count: 0,
      task_count: 0,
      completed_task_count: 0,
      created_by: adminUserId,
      closed_at: null,
    });
    const second = await makeProject(admin);
    expect(second.project_number).toBe('P-000002');
    const mappings = await mappingsOf(admin, p.project_id);
    expect(Object.keys(mappings)).toEqual(['To Do', 'In Progress', 'Done']);
    expect(mappings.Done!.is_closed).toBe(true);
    expect(mappings['To Do']!.is_default).toBe(true);
    // Alga's REST-created projects could not take tasks (no mappings): here the first task just works.
    const phase = await makePhase(admin, p.project_id);
    const task = await makeTask(admin, p.project_id, phase.phase_id);
    expect(task.status_name).toBe('To Do');
  });

  it('stores every field, hours in hours (not minutes), and joins the names', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada' });
    const owner = await makeUser(t, tenant, { role: 'Manager' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Delivery' })).json().data;
    const statuses = await projectStatuses(admin);
    const p = await makeProject(admin, {
      project_name: 'Migration',
      description: 'Move **everything**',
      client_id: client.client_id,
      contact_name_id: contact.contact_id,
      assigned_to: owner.userId,
      assigned_team_id: team.team_id,
      status_id: statuses.Active!.status_id,
      start_date: '2026-01-01',
      end_date: '2026-03-31',
      budgeted_hours: 120.5,
    });
    expect(p).toMatchObject({
      description: 'Move **everything**',
      client_id: client.client_id,
      client_name: 'Acme',
      contact_name_id: contact.contact_id,
      contact_name: 'Ada',
      assigned_to: owner.userId,
      assigned_to_name: 'Test User',
      assigned_team_id: team.team_id,
      assigned_team_name: 'Delivery',
      status_name: 'Active',
      start_date: '2026-01-01',
      end_date: '2026-03-31',
      budgeted_hours: 120.5,
    });
    const row = await t.database.db.selectFrom('projects').select('budgeted_hours').where('project_id', '=', p.project_id).executeTakeFirstOrThrow();
    expect(Number(row.budgeted_hours)).toBe(120.5);
    const got = await admin.get(`/api/v1/projects/${p.project_id}`);
    expectStatus(got, 200);
    expect(got.json().data).toEqual(p);
    expect(got.headers.etag).toBe((await admin.get(`/api/v1/projects/${p.project_id}`)).headers.etag);
  });

  it('rolls up phase and task counts and actual hours', async () => {
    const { admin } = await makeTenant(t);
    const p = await makeProject(admin);
    const phase = await makePhase(admin, p.project_id);
    const done = (await mappingsOf(admin, p.project_id)).Done!;
    await makeTask(admin, p.project_id, phase.phase_id, { actual_hours: 1.25 });
    await makeTask(admin, p.project_id, phase.phase_id, { actual_hours: 2.5, status_mapping_id: done.status_mapping_id });
    const got = (await admin.get(`/api/v1/projects/${p.project_id}`)).json().data;
    expect(got).toMatchObject({ phase_count: 1, task_count: 2, completed_task_count: 1, actual_hours: 3.75 });
  });

  it('400: missing or blank name, unknown fields, bad dates, end before start, negative or over-precise hours, bad references', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const other = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: other.client_id });
    const portalUser = await makeUser(t, (await makeTenant(t)).tenant, {});
    const bad: Record<string, unknown>[] = [
      {},
      { project_name: '   ' },
      { project_name: 'x', nope: 1 },
      { project_name: 'x'.repeat(256) },
      { project_name: 'x', start_date: '2026-02-30' },
      { project_name: 'x', start_date: '2026-03-01', end_date: '2026-02-01' },
      { project_name: 'x', budgeted_hours: -1 },
      { project_name: 'x', budgeted_hours: 1.234 },
      { project_name: 'x', budgeted_hours: '10' },
      { project_name: 'x', client_id: randomId() },
      { project_name: 'x', client_id: 'not-a-uuid' },
      { project_name: 'x', status_id: randomId() },
      { project_name: 'x', assigned_to: randomId() },
      { project_name: 'x', assigned_to: portalUser.userId },
      { project_name: 'x', assigned_team_id: randomId() },
      { project_name: 'x', client_id: client.client_id, contact_name_id: contact.contact_id },
      { project_name: 'x', contact_name_id: contact.contact_id },
    ];
    for (const body of bad) expectError(await admin.post('/api/v1/projects', body), 400, 'VALIDATION_ERROR');
    expect((await admin.get('/api/v1/projects')).json().pagination.total).toBe(0);
  });

  it('409 for a merged client', async () => {
    const { admin, tenant } = await makeTenant(t);
    const a = await makeClient(admin);
    const b = await makeClient(admin);
    await tombstone(t, tenant, a.client_id, b.client_id);
    expectError(await admin.post('/api/v1/projects', { project_name: 'x', client_id: a.client_id }), 409, 'CONFLICT');
  });

  it('401 without or with an invalid key; 403 for roles lacking the permission', async () => {
    const { admin, tenant } = await makeTenant(t);
    const p = await makeProject(admin);
    const anon = anonymous(t);
    expect((await anon.get('/api/v1/projects')).statusCode).toBe(401);
    expect((await anon.post('/api/v1/projects', { project_name: 'x' })).statusCode).toBe(401);
    expect((await anon.get(`/api/v1/projects/${p.project_id}`)).statusCode).toBe(401);
    expect((await anon.put(`/api/v1/projects/${p.project_id}`, { project_name: 'y' })).statusCode).toBe(401);
    expect((await anon.delete(`/api/v1/projects/${p.project_id}`)).statusCode).toBe(401);
    expect((await anon.get('/api/v1/project-statuses')).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/projects', headers: { 'x-api-key': 'psa_invalid' } })).statusCode).toBe(401);
    const viewer = (await makeUser(t, tenant, { role: 'Viewer' })).api;
    expectStatus(await viewer.get(`/api/v1/projects/${p.project_id}`), 200);
    expectError(await viewer.post('/api/v1/projects', { project_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.put(`/api/v1/projects/${p.project_id}`, { project_name: 'y' }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(`/api/v1/projects/${p.project_id}`), 403, 'FORBIDDEN');
    const nobody = (await makeUser(t, tenant, {})).api;
    expectError(await nobody.get('/api/v1/projects'), 403, 'FORBIDDEN');
    expectError(await nobody.get(`/api/v1/projects/${p.project_id}`), 403, 'FORBIDDEN');
    expectError(await nobody.get('/api/v1/project-statuses'), 403, 'FORBIDDEN');
    expectError(await nobody.get(`/api/v1/projects/${p.project_id}/task-status-mappings`), 403, 'FORBIDDEN');
  });

  it('404 for unknown ids and another tenant\'s project (which stays unchanged)', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const p = await makeProject(a.admin, { project_name: 'Mine' });
    for (const api of [a.admin, b.admin]) {
      const id = api === a.admin ? randomId() : p.project_id;
      expectError(await api.get(`/api/v1/projects/${id}`), 404, 'NOT_FOUND');
      expectError(await api.put(`/api/v1/projects/${id}`, { project_name: 'Hijacked' }), 404, 'NOT_FOUND');
      expectError(await api.delete(`/api/v1/projects/${id}`), 404, 'NOT_FOUND');
      expectError(await api.get(`/api/v1/projects/${id}/task-status-mappings`), 404, 'NOT_FOUND');
    }
    expect((await a.admin.get(`/api/v1/projects/${p.project_id}`)).json().data.project_name).toBe('Mine');
    expect((await b.admin.get('/api/v1/projects')).json().pagination.total).toBe(0);
    expectError(await a.admin.get('/api/v1/projects/not-a-uuid'), 400, 'VALIDATION_ERROR');
  });

  it('PUT changes only what differs, honours If-Match (412), closes and reopens with the status', async () => {
    const { admin } = await makeTenant(t);
    const statuses = await projectStatuses(admin);
    const p = await makeProject(admin, { project_name: 'Before', start_date: '2026-01-10' });
    const etag = (await admin.get(`/api/v1/projects/${p.project_id}`)).headers.etag as string;
    const same = await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'Before' });
    expectStatus(same, 200);
    expect(same.json().data.updated_at).toBe(p.updated_at);
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const renamed = await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'After', budgeted_hours: 8 }, { 'if-match': etag });
    expectStatus(renamed, 200);
    expect(renamed.json().data).toMatchObject({ project_name: 'After', budgeted_hours: 8 });
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'x' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, { end_date: '2026-01-01' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, { project_number: 'P-9' }), 400, 'VALIDATION_ERROR');
    const closed = (await admin.put(`/api/v1/projects/${p.project_id}`, { status_id: statuses.Completed!.status_id })).json().data;
    expect(closed).toMatchObject({ is_closed: true, status_name: 'Completed' });
    expect(closed.closed_at).not.toBeNull();
    const reopened = (await admin.put(`/api/v1/projects/${p.project_id}`, { status_id: statuses.Active!.status_id })).json().data;
    expect(reopened).toMatchObject({ is_closed: false, closed_at: null });
  });

  it('DELETE removes the project with phases, tasks, checklists, comments and reactions; If-Match honoured', async () => {
    const { admin, tenant } = await makeTenant(t);
    const p = await makeProject(admin);
    const phase = await makePhase(admin, p.project_id);
    const task = await makeTask(admin, p.project_id, phase.phase_id);
    expectStatus(await admin.post(`/api/v1/projects/tasks/${task.task_id}/checklist`, { item_name: 'a' }), 201);
    const comment = (await admin.post(`/api/v1/projects/tasks/${task.task_id}/comments`, { comment_text: 'hi' })).json().data;
    expectStatus(await admin.post(`/api/v1/projects/tasks/${task.task_id}/comments/${comment.comment_id}/reactions`, { emoji: '👍' }), 200);
    expectError(await admin.delete(`/api/v1/projects/${p.project_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const res = await admin.delete(`/api/v1/projects/${p.project_id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await admin.get(`/api/v1/projects/${p.project_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/projects/tasks/${task.task_id}`), 404, 'NOT_FOUND');
    const db = t.database.db;
    for (const table of ['project_phases', 'project_tasks', 'project_task_checklist_items', 'project_task_comments', 'project_task_comment_reactions', 'project_task_status_mappings'] as const) {
      const n = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow();
      expect(Number(n.n), table).toBe(0);
    }
    const events = await db.selectFrom('events').select('event_type').where('tenant', '=', tenant).where('aggregate_id', '=', p.project_id).execute();
    expect(events.map((e) => e.event_type)).toEqual(['project.created', 'project.deleted']);
  });

  it('concurrent creates get distinct numbers and gapless positions', async () => {
    const { admin } = await makeTenant(t);
    const projects = await Promise.all(Array.from({ length: 5 }, () => makeProject(admin)));
    expect(projects.map((p) => p.project_number).sort()).toEqual(['P-000001', 'P-000002', 'P-000003', 'P-000004', 'P-000005']);
    const phase = await makePhase(admin, projects[0]!.project_id);
    const tasks = await Promise.all(Array.from({ length: 5 }, () => makeTask(admin, projects[0]!.project_id, phase.phase_id, { position: 1 })));
    expect(tasks.map((x) => x.position).sort()).toEqual([1, 1, 1, 1, 1]);
    const listed = (await admin.get(`/api/v1/projects/${projects[0]!.project_id}/tasks`)).json().data as { position: number }[];
    expect(listed.map((x) => x.position)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a client with projects cannot be deleted (409 naming them)', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const p = await makeProject(admin, { client_id: client.client_id });
    const res = await admin.delete(`/api/v1/clients/${client.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(JSON.stringify(res.json().error.details)).toContain('projects');
    expectStatus(await admin.delete(`/api/v1/projects/${p.project_id}`), 204);
    expectStatus(await admin.delete(`/api/v1/clients/${client.client_id}`), 204);
  });

  it('lists project statuses in order, with the closed and default flags', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get('/api/v1/project-statuses');
    expectStatus(res, 200);
    expect(res.json().data.map((s: { name: string; is_closed: boolean; is_default: boolean }) => [s.name, s.is_closed, s.is_default])).toEqual([
      ['Planning', false, true], ['Active', false, false], ['On Hold', false, false], ['Completed', true, false], ['Cancelled', true, false],
    ]);
    expectError(await admin.get('/api/v1/project-statuses?x=1'), 400, 'VALIDATION_ERROR');
  });
});
