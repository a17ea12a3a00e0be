import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTicket } from '../../../../test/ticket-factories.ts';
import { makePhase, makeProject, makeTask, ok, rowCount, type Json } from '../../../../test/project-extras-kit.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let viewer: Api;
let clientId: string;
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  viewer = (await makeUser(t, a.tenant, { role: 'Viewer' })).api;
  clientId = (await makeClient(a.admin)).client_id;
});
afterAll(async () => t.close());

const url = (projectId: string) => `/api/v1/projects/${projectId}/tickets`;

async function fixture() {
  const project = await makeProject(a.admin, { client_id: clientId });
  const phase = await makePhase(a.admin, project.project_id, { phase_name: 'Build' });
  const other = await makePhase(a.admin, project.project_id, { phase_name: 'Test' });
  const task = await makeTask(a.admin, project.project_id, phase.phase_id, { task_name: 'Wire it' });
  const ticket = await makeTicket(a.admin, clientId, { title: 'Printer down' });
  return { project, phase, other, task, ticket };
}

describe('project-ticket links', () => {
  it('links a ticket to the project, a phase and a task; lists them with ticket and phase/task details', async () => {
    const { project, phase, other, task, ticket } = await fixture();
    const second = await makeTicket(a.admin, clientId, { title: 'VPN slow' });
    const res = await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id });
    const projectLink = ok<Json>(res, 201);
    expect(res.headers.location).toBe(url(project.project_id));
    expect(projectLink).toMatchObject({ project_id: project.project_id, ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number, title: 'Printer down', is_closed: false, phase_id: null, task_id: null, linked_by: a.adminUserId });
    const phaseLink = ok<Json>(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, phase_id: other.phase_id }), 201);
    expect(phaseLink).toMatchObject({ phase_id: other.phase_id, phase_name: 'Test', task_id: null });
    const taskLink = ok<Json>(await a.admin.post(url(project.project_id), { ticket_id: second.ticket_id, task_id: task.task_id, phase_id: phase.phase_id }), 201);
    expect(taskLink).toMatchObject({ task_id: task.task_id, task_name: 'Wire it', phase_id: phase.phase_id, phase_name: 'Build', status_name: second.status_name });

    const list = await a.admin.get(url(project.project_id));
    expect(list.statusCode).toBe(200);
    expect(list.json().pagination.total).toBe(3);
    expect(list.json().data.map((l: Json) => l.link_id)).toEqual([projectLink.link_id, phaseLink.link_id, taskLink.link_id]);
    expect(ok<Json[]>(await a.admin.get(`${url(project.project_id)}?phase_id=${phase.phase_id}`)).map((l) => l.link_id)).toEqual([taskLink.link_id]);
    expect(ok<Json[]>(await a.admin.get(`${url(project.project_id)}?task_id=${task.task_id}`)).map((l) => l.link_id)).toEqual([taskLink.link_id]);
    expect(ok<Json[]>(await viewer.get(`${url(project.project_id)}?sort=ticket_number&order=desc`)).map((l) => l.ticket_id)).toEqual([second.ticket_id, ticket.ticket_id, ticket.ticket_id]);

    // A task link follows its task to another phase.
    ok(await a.admin.put(`/api/v1/projects/tasks/${task.task_id}`, { phase_id: other.phase_id }));
    expect(ok<Json[]>(await a.admin.get(`${url(project.project_id)}?task_id=${task.task_id}`))[0]).toMatchObject({ phase_id: other.phase_id, phase_name: 'Test' });

    // Closing the ticket shows in the list and its filter.
    const closed = ok<Json[]>(await a.admin.get(`/api/v1/boards/${second.board_id}/statuses?is_closed=true`))[0].status_id;
    ok(await a.admin.put(`/api/v1/tickets/${second.ticket_id}`, { status_id: closed }));
    expect(ok<Json[]>(await a.admin.get(`${url(project.project_id)}?is_closed=true`)).map((l) => [l.ticket_id, l.is_closed])).toEqual([[second.ticket_id, true]]);
  });

  it('409 for the same ticket on the same target; 400 for bad bodies and references', async () => {
    const { project, phase, other, task, ticket } = await fixture();
    ok(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, task_id: task.task_id }), 201);
    const dup = await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, task_id: task.task_id });
    expectError(dup, 409, 'CONFLICT');
    expect(dup.json().error.details.link_id).toBeDefined();
    const before = await rowCount(t, 'project_ticket_links', a.tenant);
    expectError(await a.admin.post(url(project.project_id), {}), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(url(project.project_id), { ticket_id: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, note: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(url(project.project_id), { ticket_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, phase_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, task_id: task.task_id, phase_id: other.phase_id }), 400, 'VALIDATION_ERROR');
    const elsewhere = await makeProject(a.admin);
    const elsewherePhase = await makePhase(a.admin, elsewhere.project_id);
    expectError(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, phase_id: elsewherePhase.phase_id }), 400, 'VALIDATION_ERROR');
    const bTicket = await makeTicket(b.admin, (await makeClient(b.admin)).client_id);
    expectError(await a.admin.post(url(project.project_id), { ticket_id: bTicket.ticket_id, phase_id: phase.phase_id }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url(project.project_id)}?colour=red`), 400, 'VALIDATION_ERROR');
    expect(await rowCount(t, 'project_ticket_links', a.tenant)).toBe(before);
  });

  it('DELETE removes every link of the ticket to the project; 404 when none', async () => {
    const { project, phase, ticket } = await fixture();
    const keep = await makeTicket(a.admin, clientId);
    ok(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id }), 201);
    ok(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id, phase_id: phase.phase_id }), 201);
    ok(await a.admin.post(url(project.project_id), { ticket_id: keep.ticket_id }), 201);
    const res = await a.admin.delete(`${url(project.project_id)}/${ticket.ticket_id}`);
    expect(res.statusCode).toBe(204);
    expect(ok<Json[]>(await a.admin.get(url(project.project_id))).map((l) => l.ticket_id)).toEqual([keep.ticket_id]);
    expectError(await a.admin.delete(`${url(project.project_id)}/${ticket.ticket_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`${url(project.project_id)}/${randomId()}`), 404, 'NOT_FOUND');
    // Deleting the ticket drops its links too.
    expect((await a.admin.delete(`/api/v1/tickets/${keep.ticket_id}`)).statusCode).toBe(204);
    expect(ok<Json[]>(await a.admin.get(url(project.project_id)))).toEqual([]);
  });

  it('401, 403 (needs project:read + ticket:read; linking needs project:update), 404 for unknown and other tenants’ projects', async () => {
    const { project, ticket } = await fixture();
    expectError(await anonymous(t).get(url(project.project_id)), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post(url(project.project_id), { ticket_id: ticket.ticket_id }), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).delete(`${url(project.project_id)}/${ticket.ticket_id}`), 401, 'UNAUTHORIZED');
    const role = ok<{ role_id: string }>(await a.admin.post('/api/v1/roles', { role_name: `Projects only ${randomId().slice(0, 6)}`, permissions: ['project:read', 'project:update'] }), 201);
    const projectsOnly = await makeUser(t, a.tenant);
    ok(await a.admin.post(`/api/v1/users/${projectsOnly.userId}/roles`, { role_ids: [role.role_id] }));
    const forbidden = await projectsOnly.api.get(url(project.project_id));
    expectError(forbidden, 403, 'FORBIDDEN');
    expect(forbidden.json().error.details.required).toEqual(['ticket:read']);
    expectError(await viewer.post(url(project.project_id), { ticket_id: ticket.ticket_id }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(`${url(project.project_id)}/${ticket.ticket_id}`), 403, 'FORBIDDEN');
    expectError(await a.admin.get(url(randomId())), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url(project.project_id)), 404, 'NOT_FOUND');
    expectError(await b.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id }), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(`${url(project.project_id)}/${ticket.ticket_id}`), 404, 'NOT_FOUND');
  });

  it('client-portal keys see their own client’s project and only their client’s tickets on it', async () => {
    const { project, ticket } = await fixture();
    ok(await a.admin.post(url(project.project_id), { ticket_id: ticket.ticket_id }), 201);
    const portal = (await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId })).api;
    expect(ok<Json[]>(await portal.get(url(project.project_id))).map((l) => l.ticket_id)).toEqual([ticket.ticket_id]);
    const otherClient = await makeClient(a.admin);
    const otherPortal = (await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId: otherClient.client_id })).api;
    expectError(await otherPortal.get(url(project.project_id)), 404, 'NOT_FOUND');
  });
});
