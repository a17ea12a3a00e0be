import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique } from '../../../test/factories.ts';
import { expectError, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { reindexSearch } from '../search/index.ts';
import { makePhase, makeProject, makeProjectTree, makeTask, projectStatuses, type ProjectJson } from '../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const names = (res: { json(): { data: ProjectJson[] } }) => res.json().data.map((p) => p.project_name);

describe(`project list (${engine})`, () => {
  it('filters by client, status, closed, owner and text; sorts; paginates', async () => {
    const { admin, tenant } = await makeTenant(t);
    const statuses = await projectStatuses(admin);
    const acme = await makeClient(admin, { client_name: 'Acme' });
    const owner = await makeUser(t, tenant, { role: 'Manager' });
    await makeProject(admin, { project_name: 'Bravo', client_id: acme.client_id, start_date: '2026-03-01' });
    await makeProject(admin, { project_name: 'alpha', description: 'needle here', assigned_to: owner.userId, start_date: '2026-01-01' });
    await makeProject(admin, { project_name: 'Charlie', status_id: statuses.Completed!.status_id });
    const list = async (q: string) => {
      const res = await admin.get(`/api/v1/projects${q}`);
      expectStatus(res, 200);
      return names(res);
    };
    expect(await list('')).toEqual(['Bravo', 'alpha', 'Charlie']);
    expect(await list(`?client_id=${acme.client_id}`)).toEqual(['Bravo']);
    expect(await list(`?status_id=${statuses.Completed!.status_id}`)).toEqual(['Charlie']);
    expect(await list('?is_closed=true')).toEqual(['Charlie']);
    expect(await list('?is_closed=false')).toEqual(['Bravo', 'alpha']);
    expect(await list(`?assigned_to=${owner.userId}`)).toEqual(['alpha']);
    expect(await list('?search=NEEDLE')).toEqual(['alpha']);
    expect(await list('?search=P-000003')).toEqual(['Charlie']);
    expect(await list('?search=%25')).toEqual([]);
    expect(await list('?sort=project_name')).toEqual(['alpha', 'Bravo', 'Charlie']);
    expect(await list('?sort=start_date&order=desc')).toEqual(['Bravo', 'alpha', 'Charlie']);
    expect(await list('?sort=project_number&order=desc')).toEqual(['Charlie', 'alpha', 'Bravo']);
    expect(await list(`?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    const page = (await admin.get('/api/v1/projects?limit=2&page=2')).json();
    expect(page.data.map((p: ProjectJson) => p.project_name)).toEqual(['Charlie']);
    expect(page.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    for (const q of ['?limit=0', '?limit=101', '?page=0', '?sort=budget', '?order=up', '?is_closed=perhaps', '?client_id=x', '?foo=1', `?search=${'x'.repeat(201)}`]) {
      expectError(await admin.get(`/api/v1/projects${q}`), 400, 'VALIDATION_ERROR');
    }
  });
});

describe(`client-portal keys (${engine})`, () => {
  it('see only their own client\'s projects, phases and tasks; others are 404; they cannot comment', async () => {
    const { admin, tenant } = await makeTenant(t);
    const mine = await makeClient(admin, { client_name: 'Mine' });
    const theirs = await makeClient(admin, { client_name: 'Theirs' });
    const own = await makeProjectTree(admin, { project_name: 'Own', client_id: mine.client_id });
    const other = await makeProjectTree(admin, { project_name: 'Other', client_id: theirs.client_id });
    const internal = await makeProjectTree(admin, { project_name: 'Internal' });
    const role = unique('Portal projects');
    const created = await admin.post('/api/v1/roles', { role_name: role, is_client_portal: true, permissions: ['project:read'] });
    expectStatus(created, 201);
    // The roles API keeps task permissions away from portal roles; granted directly, the row scoping still holds.
    await t.database.db.insertInto('role_permissions')
      .values(['project_task:read', 'project_task:update'].map((permission) => ({ tenant, role_id: created.json().data.role_id, permission })))
      .execute();
    const portal = (await makeUser(t, tenant, { role, userType: 'client', clientId: mine.client_id })).api;

    const list = await portal.get('/api/v1/projects');
    expectStatus(list, 200);
    expect(names(list)).toEqual(['Own']);
    expect(list.json().pagination.total).toBe(1);
    expect(names(await portal.get(`/api/v1/projects?client_id=${theirs.client_id}`))).toEqual([]);
    expectStatus(await portal.get(`/api/v1/projects/${own.project.project_id}`), 200);
    expectStatus(await portal.get(`/api/v1/projects/${own.project.project_id}/phases`), 200);
    expectStatus(await portal.get(`/api/v1/projects/${own.project.project_id}/tasks`), 200);
    expectStatus(await portal.get(`/api/v1/projects/tasks/${own.task.task_id}`), 200);
    expectStatus(await portal.get(`/api/v1/projects/tasks/${own.task.task_id}/comments`), 200);
    for (const tree of [other, internal]) {
      expectError(await portal.get(`/api/v1/projects/${tree.project.project_id}`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/projects/${tree.project.project_id}/phases`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/projects/${tree.project.project_id}/task-status-mappings`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/projects/tasks/${tree.task.task_id}`), 404, 'NOT_FOUND');
      expectError(await portal.put(`/api/v1/projects/tasks/${tree.task.task_id}`, { task_name: 'x' }), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/projects/tasks/${tree.task.task_id}/checklist`), 404, 'NOT_FOUND');
    }
    expectError(await portal.post(`/api/v1/projects/tasks/${own.task.task_id}/comments`, { comment_text: 'hello' }), 403, 'FORBIDDEN');

    // The built-in Client Admin role reads projects but not their tasks.
    const clientAdmin = (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: mine.client_id })).api;
    expect(names(await clientAdmin.get('/api/v1/projects'))).toEqual(['Own']);
    expectError(await clientAdmin.get(`/api/v1/projects/tasks/${own.task.task_id}`), 403, 'FORBIDDEN');
  });
});

describe(`search index (${engine})`, () => {
  it('indexes projects, phases, tasks and comments in the write\'s transaction, and drops them on delete', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const p = await makeProject(admin, { project_name: 'Relaunch', description: 'New site', client_id: client.client_id });
    const phase = await makePhase(admin, p.project_id, { phase_name: 'Design' });
    const task = await makeTask(admin, p.project_id, phase.phase_id, { task_name: 'Wireframes' });
    const comment = (await admin.post(`/api/v1/projects/tasks/${task.task_id}/comments`, { comment_text: 'Looks good' })).json().data;
    const docs = async () => t.database.db
      .selectFrom('search_documents')
      .select(['object_type', 'object_id', 'parent_type', 'parent_id', 'title', 'subtitle', 'body', 'url', 'identifier', 'client_id'])
      .where('tenant', '=', tenant)
      .where('object_type', 'like', 'project%')
      .orderBy('object_type')
      .execute();
    expect(await docs()).toEqual([
      { object_type: 'project', object_id: p.project_id, parent_type: null, parent_id: null, title: 'Relaunch', subtitle: 'Acme | P-000001', body: 'New site', url: `/projects/${p.project_id}`, identifier: 'p-000001', client_id: client.client_id },
      { object_type: 'project_phase', object_id: phase.phase_id, parent_type: 'project', parent_id: p.project_id, title: 'Design', subtitle: 'P-000001 | Relaunch', body: null, url: `/projects/${p.project_id}`, identifier: null, client_id: client.client_id },
      { object_type: 'project_task', object_id: task.task_id, parent_type: 'project_phase', parent_id: phase.phase_id, title: 'Wireframes', subtitle: 'P-000001 | Relaunch | Design', body: null, url: `/projects/${p.project_id}/tasks/${task.task_id}`, identifier: null, client_id: client.client_id },
      { object_type: 'project_task_comment', object_id: comment.comment_id, parent_type: 'project_task', parent_id: task.task_id, title: 'Comment on Wireframes', subtitle: 'P-000001', body: 'Looks good', url: `/projects/${p.project_id}/tasks/${task.task_id}`, identifier: null, client_id: client.client_id },
    ]);
    // A full re-index (batches of one, so the keyset paging of every project type is used) rebuilds the same rows.
    const before = await docs();
    await t.database.db.deleteFrom('search_documents').where('tenant', '=', tenant).where('object_type', 'like', 'project%').execute();
    await reindexSearch(t.database.db, { tenants: [tenant], types: ['project', 'project_phase', 'project_task', 'project_task_comment'], batchSize: 1 });
    expect(await docs()).toEqual(before);
    // Moving the project to another client re-scopes every row under it.
    const other = await makeClient(admin);
    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { client_id: other.client_id, project_name: 'Relaunch 2' }), 200);
    const moved = await docs();
    expect(moved.map((d) => d.client_id)).toEqual([other.client_id, other.client_id, other.client_id, other.client_id]);
    expect(moved[2]!.subtitle).toBe('P-000001 | Relaunch 2 | Design');
    expect((await admin.delete(`/api/v1/projects/${p.project_id}`)).statusCode).toBe(204);
    expect(await docs()).toEqual([]);
  });
});
