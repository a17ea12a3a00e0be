import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectError, expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, mappingsOf, projectEvents, projectStatuses, type ProjectEventRow } from '../../../test/project-factories.ts';
import { PROJECT_DATA_FIELDS } from './projects.vocabulary.ts';
import { toProjectData } from './projects.mapper.ts';
import type { ProjectViewRow } from './projects.repo.ts';
import { toTaskData } from './tasks/tasks.mapper.ts';
import type { TaskViewRow } from './tasks/tasks.repo.ts';

const PUBLIC_URL = 'https://psa.example.test';
let t: TestApp;
beforeAll(async () => { t = await buildTestApp({ config: { publicUrl: PUBLIC_URL } }); });
afterAll(async () => { await t.close(); });

const types = (events: ProjectEventRow[]) => events.map((e) => e.event_type);

const SORTED_FIELDS = [...PROJECT_DATA_FIELDS].sort();

/** Every project event's data holds exactly the allowlist (jsonb keeps no key order); only *.updated carries `changes`. */
function expectCurated(e: ProjectEventRow): void {
  expect(Object.keys(e.payload.data).sort(), e.event_type).toEqual(SORTED_FIELDS);
  const updated = e.event_type === 'project.updated' || e.event_type === 'project.task.updated';
  expect(Object.keys(e.payload).sort()).toEqual(updated ? ['changes', 'data'] : ['data']);
}

describe('the curated data builders', () => {
  it('build exactly PROJECT_DATA_FIELDS, in that order', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const project = {
      tenant: 't', project_id: 'p', project_seq: 1, project_number: 'P-000001', project_name: 'P', description: null, client_id: null, contact_id: null,
      assigned_to: null, assigned_team_id: null, status_id: 's', is_closed: false, start_date: null, end_date: null, budgeted_hours: '1.50', created_by: null,
      created_at: at, updated_by: null, updated_at: at, closed_at: null, status_name: 'S', client_name: null, contact_name: null, contact_email: null,
      assigned_to_name: null, assigned_team_name: null, phase_count: 0, task_count: 0, completed_task_count: 0, actual_hours: '0',
    } satisfies ProjectViewRow;
    const data = toProjectData(project, { publicUrl: 'https://x' });
    expect(Object.keys(data)).toEqual([...PROJECT_DATA_FIELDS]);
    expect(data).toMatchObject({ budgeted_hours: 1.5, updated_at: '2026-01-02T03:04:05.678Z', url: 'https://x/api/v1/projects/p' });
    const task = {
      tenant: 't', task_id: 'k', project_id: 'p', phase_id: 'f', task_name: 'K', description: 'd', status_mapping_id: 'm', assigned_to: null, assigned_team_id: null,
      estimated_hours: null, actual_hours: '2.25', due_date: '2026-02-01', priority_id: null, position: 1, completed_at: null, created_by: null, created_at: at,
      updated_by: null, updated_at: at, phase_name: 'F', task_status_id: 'ts', status_name: 'To Do', is_closed: false, assigned_to_name: null,
      assigned_team_name: null, priority_name: null, checklist_total: 0, checklist_completed: 0,
    } satisfies TaskViewRow;
    const taskData = toTaskData(project, task, { publicUrl: 'https://x' });
    expect(Object.keys(taskData)).toEqual([...PROJECT_DATA_FIELDS]);
    expect(taskData).toMatchObject({ task_id: 'k', project_id: 'p', description: 'd', status_id: 'ts', actual_hours: 2.25, url: 'https://x/api/v1/projects/tasks/k' });
  });
});

describe(`project events (${engine})`, () => {
  it('project.created carries the project\'s data as committed (task fields null)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada', email: 'ada@acme.test' });
    const owner = await makeUser(t, tenant, { role: 'Manager' });
    const p = await makeProject(admin, {
      project_name: 'Relaunch', description: 'd', client_id: client.client_id, contact_name_id: contact.contact_id, assigned_to: owner.userId,
      start_date: '2026-01-01', end_date: '2026-02-01', budgeted_hours: 10.5,
    });
    const events = await projectEvents(t, tenant, p.project_id);
    expect(types(events)).toEqual(['project.created']);
    expectCurated(events[0]!);
    expect(events[0]!.aggregate_type).toBe('project');
    expect(events[0]!.payload.data).toEqual({
      project_id: p.project_id, project_number: 'P-000001', project_name: 'Relaunch', description: 'd', status_id: p.status_id, status_name: 'Planning',
      previous_status_id: null, previous_status_name: null, is_closed: false, client_id: client.client_id, client_name: 'Acme',
      contact_name_id: contact.contact_id, contact_name: 'Ada', contact_email: 'ada@acme.test', assigned_to: owner.userId, assigned_to_name: 'Test User',
      assigned_team_id: null, start_date: '2026-01-01', end_date: '2026-02-01', budgeted_hours: 10.5, task_id: null, task_name: null, phase_id: null,
      phase_name: null, estimated_hours: null, actual_hours: null, due_date: null, priority_id: null, priority_name: null, tags: null,
      updated_at: p.updated_at, url: `${PUBLIC_URL}/api/v1/projects/${p.project_id}`,
    });
  });

  it('PUT emits updated (+changes), status_changed (previous status), closed and assigned as they apply; a no-op or a failed write emits nothing', async () => {
    const { admin, tenant } = await makeTenant(t);
    const statuses = await projectStatuses(admin);
    const owner = await makeUser(t, tenant, { role: 'Manager' });
    const p = await makeProject(admin, { project_name: 'Before' });
    const since = async (n: number) => (await projectEvents(t, tenant, p.project_id)).slice(n);

    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'After' }), 200);
    let added = await since(1);
    expect(types(added)).toEqual(['project.updated']);
    expect(added[0]!.payload.changes).toEqual({ project_name: { previous: 'Before', new: 'After' } });
    expectCurated(added[0]!);

    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { project_name: 'After' }), 200);
    expectError(await admin.put(`/api/v1/projects/${p.project_id}`, { status_id: statuses.Completed!.status_id, end_date: '2000-01-01', start_date: '2001-01-01' }), 400, 'VALIDATION_ERROR');
    expect(await since(2)).toEqual([]);

    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { status_id: statuses.Completed!.status_id }), 200);
    added = await since(2);
    expect(types(added)).toEqual(['project.updated', 'project.status_changed', 'project.closed']);
    for (const e of added) {
      expectCurated(e);
      expect(e.payload.data).toMatchObject({ status_id: statuses.Completed!.status_id, status_name: 'Completed', is_closed: true, previous_status_id: statuses.Planning!.status_id, previous_status_name: 'Planning' });
    }
    expect(added[0]!.payload.changes).toEqual({ status_id: { previous: statuses.Planning!.status_id, new: statuses.Completed!.status_id } });

    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { status_id: statuses.Cancelled!.status_id }), 200);
    expect(types(await since(5))).toEqual(['project.updated', 'project.status_changed']);

    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}`, { assigned_to: owner.userId, budgeted_hours: 3 }), 200);
    added = await since(7);
    expect(types(added)).toEqual(['project.updated', 'project.assigned']);
    expect(added[0]!.payload.changes).toEqual({ assigned_to: { previous: null, new: owner.userId }, budgeted_hours: { previous: null, new: 3 } });
    expect(added[1]!.payload.data).toMatchObject({ assigned_to: owner.userId, assigned_to_name: 'Test User', previous_status_id: null });
    expect(new Set(added.map((e) => e.event_id)).size).toBe(2);
  });

  it('task events: created, updated (+changes), status_changed, completed, assigned — with task_id next to project_id', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const p = await makeProject(admin, { project_name: 'P', client_id: client.client_id });
    const phase = await makePhase(admin, p.project_id, { phase_name: 'Build' });
    const mappings = await mappingsOf(admin, p.project_id);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const task = await makeTask(admin, p.project_id, phase.phase_id, { task_name: 'Wire', estimated_hours: 2, due_date: '2026-06-01' });
    const since = async (n: number) => (await projectEvents(t, tenant, task.task_id)).slice(n);

    let added = await since(0);
    expect(types(added)).toEqual(['project.task.created']);
    expectCurated(added[0]!);
    expect(added[0]!.aggregate_type).toBe('project_task');
    expect(added[0]!.payload.data).toMatchObject({
      project_id: p.project_id, project_number: p.project_number, project_name: 'P', client_id: client.client_id, client_name: 'Acme',
      task_id: task.task_id, task_name: 'Wire', phase_id: phase.phase_id, phase_name: 'Build', status_id: mappings['To Do']!.status_id, status_name: 'To Do',
      is_closed: false, estimated_hours: 2, actual_hours: 0, due_date: '2026-06-01', url: `${PUBLIC_URL}/api/v1/projects/tasks/${task.task_id}`,
    });

    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, { status_mapping_id: mappings.Done!.status_mapping_id, actual_hours: 1.5 }), 200);
    added = await since(1);
    expect(types(added)).toEqual(['project.task.updated', 'project.task.status_changed', 'project.task.completed']);
    expect(added[0]!.payload.changes).toEqual({
      status_mapping_id: { previous: mappings['To Do']!.status_mapping_id, new: mappings.Done!.status_mapping_id },
      actual_hours: { previous: 0, new: 1.5 },
    });
    for (const e of added) {
      expectCurated(e);
      expect(e.payload.data).toMatchObject({ task_id: task.task_id, project_id: p.project_id, status_name: 'Done', is_closed: true, previous_status_id: mappings['To Do']!.status_id, previous_status_name: 'To Do', actual_hours: 1.5 });
    }

    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, { status_mapping_id: mappings['In Progress']!.status_mapping_id }), 200);
    expect(types(await since(4))).toEqual(['project.task.updated', 'project.task.status_changed']);

    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, { assigned_to: tech.userId }), 200);
    added = await since(6);
    expect(types(added)).toEqual(['project.task.updated', 'project.task.assigned']);
    expect(added[1]!.payload.data).toMatchObject({ assigned_to: tech.userId, assigned_to_name: 'Test User', previous_status_id: null });

    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, { assigned_to: tech.userId }), 200);
    expect(await since(8)).toEqual([]);
    expect(await projectEvents(t, tenant, p.project_id)).toHaveLength(1);
  });
});
