import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, makeTemplate, ok, rowCount, taskStatuses, templateBody, type Json } from '../../../../test/project-extras-kit.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let viewer: Api;
let noRole: Api;
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  viewer = (await makeUser(t, a.tenant, { role: 'Viewer' })).api;
  noRole = (await makeUser(t, a.tenant)).api;
});
afterAll(async () => t.close());

const URL = '/api/projects/templates';

describe('POST /api/projects/templates', () => {
  it('creates a template from the body with its phases, tasks and checklists, in order', async () => {
    const statuses = await taskStatuses(t, a.tenant);
    const res = await a.admin.post(URL, templateBody({ template_name: '  Rollout  ', status_mappings: [{ task_status_id: statuses['To Do'] }, { task_status_id: statuses.Done }] }));
    const tpl = ok<Json>(res, 201);
    expect(res.headers.location).toBe(`${URL}/${tpl.template_id}`);
    expect(res.headers.etag).toBeDefined();
    expect(tpl).toMatchObject({ template_name: 'Rollout', description: 'Standard rollout', category: 'Onboarding', use_count: 0, phase_count: 2, task_count: 3, created_by: a.adminUserId });
    expect(tpl.phases.map((p: Json) => [p.phase_name, p.position, p.start_offset_days, p.duration_days])).toEqual([['Discovery', 0, 0, 5], ['Rollout', 1, 5, 10]]);
    expect(tpl.phases[0].tasks.map((k: Json) => [k.task_name, k.estimated_hours, k.due_offset_days])).toEqual([['Kick-off', 1.5, 1], ['Inventory', 4, null]]);
    expect(tpl.phases[0].tasks[0].checklist.map((c: Json) => [c.item_name, c.completed])).toEqual([['Agenda', false], ['Invite', true]]);
    expect(tpl.status_mappings.map((m: Json) => [m.status_name, m.is_closed, m.position])).toEqual([['To Do', false, 0], ['Done', true, 1]]);
    const again = ok<Json>(await a.admin.get(`${URL}/${tpl.template_id}`));
    expect(again).toEqual(tpl);
  });

  it('creates a template from a project: phases as day offsets, tasks with their status, checklist items', async () => {
    const project = await makeProject(a.admin, { start_date: '2026-03-01' });
    const p1 = await makePhase(a.admin, project.project_id, { phase_name: 'Plan', start_date: '2026-03-03', end_date: '2026-03-07' });
    const p2 = await makePhase(a.admin, project.project_id, { phase_name: 'Build' });
    const mappings = ok<{ status_mapping_id: string; status_name: string }[]>(await a.admin.get(`/api/v1/projects/${project.project_id}/task-status-mappings`));
    const inProgress = mappings.find((m) => m.status_name === 'In Progress')!.status_mapping_id;
    const task = await makeTask(a.admin, project.project_id, p1.phase_id, { task_name: 'Scope', due_date: '2026-03-05', estimated_hours: 2.25, status_mapping_id: inProgress });
    await makeTask(a.admin, project.project_id, p2.phase_id, { task_name: 'Code' });
    ok(await a.admin.post(`/api/v1/projects/tasks/${task.task_id}/checklist`, { item_name: 'Write it down', completed: true }), 201);

    const tpl = ok<Json>(await a.admin.post(URL, { project_id: project.project_id, template_name: 'From project', category: 'Build' }), 201);
    const statuses = await taskStatuses(t, a.tenant);
    expect(tpl.phases.map((p: Json) => [p.phase_name, p.start_offset_days, p.duration_days])).toEqual([['Plan', 2, 5], ['Build', 0, null]]);
    expect(tpl.phases[0].tasks[0]).toMatchObject({ task_name: 'Scope', estimated_hours: 2.25, due_offset_days: 2, task_status_id: statuses['In Progress'] });
    expect(tpl.phases[0].tasks[0].checklist).toMatchObject([{ item_name: 'Write it down', completed: true }]);
    expect(tpl.phases[1].tasks.map((k: Json) => k.task_name)).toEqual(['Code']);
    expect(tpl.status_mappings.map((m: Json) => m.status_name)).toEqual(['To Do', 'In Progress', 'Done']);
  });

  it('400: neither or both of project_id and phases, blank names, unknown fields, unknown references, too many tasks', async () => {
    const before = await rowCount(t, 'project_templates', a.tenant);
    expectError(await a.admin.post(URL, { template_name: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, { template_name: 'x', project_id: randomId(), phases: [] }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, { template_name: 'x', project_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, templateBody({ template_name: '   ' })), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, templateBody({ colour: 'red' })), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, templateBody({ phases: [{ phase_name: 'P', tasks: [{ task_name: ' ' }] }] })), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(URL, templateBody({ phases: [{ phase_name: 'P', tasks: [{ task_name: 'T', estimated_hours: 1.234 }] }] })), 400, 'VALIDATION_ERROR');
    const badStatus = await a.admin.post(URL, templateBody({ phases: [{ phase_name: 'P', tasks: [{ task_name: 'T', task_status_id: randomId() }] }] }));
    expectError(badStatus, 400, 'VALIDATION_ERROR');
    expect(badStatus.json().error.details[0].path).toBe('body.phases[0].tasks[0].task_status_id');
    expectError(await a.admin.post(URL, templateBody({ phases: [{ phase_name: 'P', tasks: [{ task_name: 'T', assigned_to: randomId() }] }] })), 400, 'VALIDATION_ERROR');
    const tooMany = Array.from({ length: 6 }, (_, i) => ({ phase_name: `P${i}`, tasks: Array.from({ length: 100 }, (_, j) => ({ task_name: `T${j}` })) }));
    expectError(await a.admin.post(URL, templateBody({ phases: tooMany })), 400, 'VALIDATION_ERROR');
    const otherProject = await makeProject(b.admin);
    expectError(await a.admin.post(URL, { template_name: 'x', project_id: otherProject.project_id }), 400, 'VALIDATION_ERROR');
    expect(await rowCount(t, 'project_templates', a.tenant)).toBe(before);
  });

  it('401 without a valid key, 403 without project:create or for client-portal keys', async () => {
    expectError(await anonymous(t).post(URL, templateBody()), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).get(URL, { 'x-api-key': 'psa_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(URL, templateBody()), 403, 'FORBIDDEN');
    expectError(await noRole.get(URL), 403, 'FORBIDDEN');
    const client = await makeClient(a.admin);
    const portal = (await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId: client.client_id })).api;
    expectError(await portal.get(URL), 403, 'FORBIDDEN');
  });
});

describe('GET /api/projects/templates, categories and by id', () => {
  it('lists with filters, search (wildcards literal) and pagination; categories count regardless of case', async () => {
    const tenant = await makeTenant(t);
    await makeTemplate(tenant.admin, { template_name: 'Alpha 100%', category: 'Network' });
    await makeTemplate(tenant.admin, { template_name: 'Beta', category: 'network', description: 'servers' });
    await makeTemplate(tenant.admin, { template_name: 'Gamma', category: null });
    const all = await tenant.admin.get(`${URL}?limit=2`);
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((x: Json) => x.template_name)).toEqual(['Alpha 100%', 'Beta']);
    expect(all.json().pagination).toMatchObject({ total: 3, totalPages: 2, hasNext: true });
    expect(all.json().data[0]).toMatchObject({ phase_count: 2, task_count: 3 });
    expect(all.json().data[0].phases).toBeUndefined();
    expect(ok<Json[]>(await tenant.admin.get(`${URL}?category=NETWORK`)).map((x) => x.template_name)).toEqual(['Alpha 100%', 'Beta']);
    expect(ok<Json[]>(await tenant.admin.get(`${URL}?search=server`)).map((x) => x.template_name)).toEqual(['Beta']);
    expect(ok<Json[]>(await tenant.admin.get(`${URL}?search=0%25`)).map((x) => x.template_name)).toEqual(['Alpha 100%']);
    expect(ok<Json[]>(await tenant.admin.get(`${URL}?search=_eta`))).toEqual([]);
    expect(ok<Json[]>(await tenant.admin.get(`${URL}?sort=template_name&order=desc`)).map((x) => x.template_name)).toEqual(['Gamma', 'Beta', 'Alpha 100%']);
    expect(ok(await tenant.admin.get(`${URL}/categories`))).toEqual([{ category: 'Network', template_count: 2 }]);
    expect(ok<Json[]>(await viewer.get(`${URL}/categories`)).length).toBeGreaterThan(0);
    expect(ok<Json[]>(await b.admin.get(URL)).every((x) => x.template_name !== 'Alpha 100%')).toBe(true);
  });

  it('400 on unknown query parameters and bad values; 401; 403', async () => {
    expectError(await a.admin.get(`${URL}?colour=red`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${URL}?limit=0`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${URL}/categories?x=1`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${URL}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`${URL}/categories`), 401, 'UNAUTHORIZED');
    expectError(await noRole.get(`${URL}/categories`), 403, 'FORBIDDEN');
  });

  it('404 for an unknown id and for another tenant’s template', async () => {
    const tpl = await makeTemplate(a.admin);
    expectError(await a.admin.get(`${URL}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`${URL}/${tpl.template_id}`), 404, 'NOT_FOUND');
    expect(ok<Json>(await viewer.get(`${URL}/${tpl.template_id}`)).template_id).toBe(tpl.template_id);
  });
});

describe('PATCH and DELETE /api/projects/templates/{templateId}', () => {
  it('updates name, description and category partially; phases replace the content whole', async () => {
    const tpl = await makeTemplate(a.admin);
    const renamed = ok<Json>(await a.admin.request({ method: 'PATCH', url: `${URL}/${tpl.template_id}`, payload: { template_name: 'Renamed', category: ' ' } }));
    expect(renamed).toMatchObject({ template_name: 'Renamed', category: null, description: 'Standard rollout', task_count: 3 });
    const replaced = ok<Json>(await a.admin.request({ method: 'PATCH', url: `${URL}/${tpl.template_id}`, payload: { phases: [{ phase_name: 'Only', tasks: [{ task_name: 'One' }] }] } }));
    expect(replaced).toMatchObject({ template_name: 'Renamed', phase_count: 1, task_count: 1 });
    expect(replaced.phases[0].tasks[0]).toMatchObject({ task_name: 'One', checklist: [] });
    const phases = await t.database.db.selectFrom('project_template_phases').select('phase_name').where('tenant', '=', a.tenant).where('template_id', '=', tpl.template_id).execute();
    expect(phases).toEqual([{ phase_name: 'Only' }]);
  });

  it('PATCH status_mappings replaces them; a task hint left unmapped or a repeated status is a 400', async () => {
    const statuses = await taskStatuses(t, a.tenant);
    const tpl = await makeTemplate(a.admin, {
      status_mappings: [{ task_status_id: statuses['To Do'] }, { task_status_id: statuses.Done }],
      phases: [{ phase_name: 'P', tasks: [{ task_name: 'T', task_status_id: statuses.Done }] }],
    });
    const patch = (payload: unknown) => a.admin.request({ method: 'PATCH', url: `${URL}/${tpl.template_id}`, payload: payload as object });
    expectError(await patch({ status_mappings: [{ task_status_id: statuses['To Do'] }] }), 400, 'VALIDATION_ERROR');
    expectError(await patch({ status_mappings: [{ task_status_id: statuses.Done }, { task_status_id: statuses.Done }] }), 400, 'VALIDATION_ERROR');
    const ok2 = ok<Json>(await patch({ status_mappings: [{ task_status_id: statuses.Done }, { task_status_id: statuses['In Progress'] }] }));
    expect(ok2.status_mappings.map((m: Json) => m.status_name)).toEqual(['Done', 'In Progress']);
    expect(ok<Json>(await patch({ status_mappings: [] })).status_mappings).toEqual([]);
  });

  it('PATCH: 400 empty or unknown body, 412 stale If-Match, 404, 403, 401', async () => {
    const tpl = await makeTemplate(a.admin);
    const patch = (api: Api, payload: unknown, headers: Record<string, string> = {}) => api.request({ method: 'PATCH', url: `${URL}/${tpl.template_id}`, payload: payload as object, headers });
    expectError(await patch(a.admin, {}), 400, 'VALIDATION_ERROR');
    expectError(await patch(a.admin, { use_count: 5 }), 400, 'VALIDATION_ERROR');
    expectError(await patch(a.admin, { template_name: '' }), 400, 'VALIDATION_ERROR');
    expectError(await patch(a.admin, { template_name: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const etag = (await a.admin.get(`${URL}/${tpl.template_id}`)).headers.etag as string;
    expect((await patch(a.admin, { template_name: 'Fresh' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await patch(b.admin, { template_name: 'Hijacked' }), 404, 'NOT_FOUND');
    expectError(await a.admin.request({ method: 'PATCH', url: `${URL}/${randomId()}`, payload: { template_name: 'x' } }), 404, 'NOT_FOUND');
    expectError(await patch(viewer, { template_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await anonymous(t).request({ method: 'PATCH', url: `${URL}/${tpl.template_id}`, payload: { template_name: 'x' } }), 401, 'UNAUTHORIZED');
    expect(ok<Json>(await a.admin.get(`${URL}/${tpl.template_id}`)).template_name).toBe('Fresh');
  });

  it('DELETE removes the template with its content; 412, 404, 403, 401', async () => {
    const tpl = await makeTemplate(a.admin);
    expectError(await a.admin.delete(`${URL}/${tpl.template_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await b.admin.delete(`${URL}/${tpl.template_id}`), 404, 'NOT_FOUND');
    expectError(await viewer.delete(`${URL}/${tpl.template_id}`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete(`${URL}/${tpl.template_id}`), 401, 'UNAUTHORIZED');
    const res = await a.admin.delete(`${URL}/${tpl.template_id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expectError(await a.admin.get(`${URL}/${tpl.template_id}`), 404, 'NOT_FOUND');
    const left = await t.database.db.selectFrom('project_template_tasks').select('template_task_id').where('tenant', '=', a.tenant).where('template_id', '=', tpl.template_id).execute();
    expect(left).toEqual([]);
    expectError(await a.admin.delete(`${URL}/${tpl.template_id}`), 404, 'NOT_FOUND');
  });
});

describe('POST /api/projects/templates/{templateId}/duplicate', () => {
  it('copies the whole template as "<name> (Copy)" with use_count 0, or under the given name', async () => {
    const tpl = await makeTemplate(a.admin, { template_name: 'Source' });
    await a.admin.post(`${URL}/${tpl.template_id}/apply`, { project_name: 'Used once' });
    const res = await a.admin.post(`${URL}/${tpl.template_id}/duplicate`, {});
    const copy = ok<Json>(res, 201);
    expect(res.headers.location).toBe(`${URL}/${copy.template_id}`);
    expect(copy).toMatchObject({ template_name: 'Source (Copy)', use_count: 0, phase_count: 2, task_count: 3, category: 'Onboarding' });
    const source = ok<Json>(await a.admin.get(`${URL}/${tpl.template_id}`));
    expect(source.use_count).toBe(1);
    const strip = (x: Json) => x.phases.map((p: Json) => ({ ...p, template_phase_id: 0, tasks: p.tasks.map((k: Json) => ({ ...k, template_task_id: 0, checklist: k.checklist.map((c: Json) => ({ ...c, template_item_id: 0 })) })) }));
    expect(strip(copy)).toEqual(strip(source));
    expect(ok<Json>(await a.admin.post(`${URL}/${tpl.template_id}/duplicate`, { template_name: 'Named' }), 201).template_name).toBe('Named');
    expect(ok<Json>(await a.admin.post(`${URL}/${tpl.template_id}/duplicate`), 201).template_name).toBe('Source (Copy)');
  });

  it('400, 401, 403, 404', async () => {
    const tpl = await makeTemplate(a.admin);
    expectError(await a.admin.post(`${URL}/${tpl.template_id}/duplicate`, { template_name: '' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(`${URL}/${tpl.template_id}/duplicate`, { x: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(`${URL}/${tpl.template_id}/duplicate`, {}), 401, 'UNAUTHORIZED');
    expectError(await viewer.post(`${URL}/${tpl.template_id}/duplicate`, {}), 403, 'FORBIDDEN');
    expectError(await b.admin.post(`${URL}/${tpl.template_id}/duplicate`, {}), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`${URL}/${randomId()}/duplicate`, {}), 404, 'NOT_FOUND');
  });
});

describe('GET /api/projects', () => {
  it('is the same list as GET /api/v1/projects', async () => {
    const tenant = await makeTenant(t);
    await makeProject(tenant.admin, { project_name: 'One' });
    await makeProject(tenant.admin, { project_name: 'Two' });
    const legacy = await tenant.admin.get('/api/projects?sort=project_name&order=desc');
    const v1 = await tenant.admin.get('/api/v1/projects?sort=project_name&order=desc');
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json()).toEqual(v1.json());
    expect(legacy.json().data.map((p: Json) => p.project_name)).toEqual(['Two', 'One']);
  });

  it('400, 401, 403', async () => {
    expectError(await a.admin.get('/api/projects?colour=red'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/projects'), 401, 'UNAUTHORIZED');
    expectError(await noRole.get('/api/projects'), 403, 'FORBIDDEN');
  });
});
