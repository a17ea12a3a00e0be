import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact } from '../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, type ProjectJson } from '../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

// The project list keeps its rows by version (keptListPage): a page repeats until something it shows changes.
describe('GET /api/v1/projects, repeated', () => {
  it('shows at once what changes in a project, a row it names, or its phases and tasks', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ad' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const team = (await admin.post('/api/v1/teams', { team_name: 'Desk', member_ids: [tech.userId] })).json().data;
    const project = await makeProject(admin, { client_id: client.client_id, contact_name_id: contact.contact_id, assigned_to: tech.userId, assigned_team_id: team.team_id });
    await makeProject(admin);
    // Read twice: a page that missed is read whole once, so the second read answers from the rows it kept, and
    // the first read after the next change starts from kept rows (a change the version missed would show there).
    const row = async () => {
      const read = async () => {
        const res = await admin.get('/api/v1/projects');
        expectStatus(res, 200);
        expect(res.json().pagination.total).toBe(2);
        return (res.json().data as ProjectJson[]).find((p) => p.project_id === project.project_id)!;
      };
      const first = await read();
      expect(await read()).toEqual(first);
      return first;
    };
    const first = await admin.get('/api/v1/projects');
    expect((await admin.get('/api/v1/projects')).body).toBe(first.body);
    expect(await row()).toMatchObject({ client_name: 'Acme', phase_count: 0, task_count: 0, completed_task_count: 0, actual_hours: 0 });

    const phase = await makePhase(admin, project.project_id);
    expect((await row()).phase_count).toBe(1);
    const task = await makeTask(admin, project.project_id, phase.phase_id);
    expect((await row()).task_count).toBe(1);
    expectStatus(await admin.put(`/api/v1/projects/tasks/${task.task_id}`, { actual_hours: 2.5 }), 200);
    expect((await row()).actual_hours).toBe(2.5);
    await sql`update project_tasks set completed_at = now() where tenant = ${tenant} and task_id = ${task.task_id}`.execute(t.database.db);
    expect((await row()).completed_task_count).toBe(1);
    await sql`update clients set client_name = 'Acme 2' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(t.database.db);
    expect((await row()).client_name).toBe('Acme 2');
    await sql`update project_statuses set name = 'Renamed' where tenant = ${tenant} and status_id = ${project.status_id}`.execute(t.database.db);
    expect((await row()).status_name).toBe('Renamed');
    await sql`update contacts set full_name = 'Ada' where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(t.database.db);
    expect((await row()).contact_name).toBe('Ada');
    await sql`update users set first_name = 'Grace', last_name = 'Hopper' where tenant = ${tenant} and user_id = ${tech.userId}`.execute(t.database.db);
    expect((await row()).assigned_to_name).toBe('Grace Hopper');
    await sql`update teams set team_name = 'Desk 2' where tenant = ${tenant} and team_id = ${team.team_id}`.execute(t.database.db);
    expect((await row()).assigned_team_name).toBe('Desk 2');
  });
});
