import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../test/factories.ts';
import { eventsOf, expectError, expectStatus } from '../../../test/client-factories.ts';
import { makeInbound, receive, signed, type InboundJson } from '../../../test/inbound-factories.ts';
import { makePhase, makeProject, ok, type Json } from '../../../test/project-extras-kit.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const direct = (api: Api, fieldMapping: Record<string, string>): Promise<InboundJson> =>
  makeInbound(api, { handler_type: 'direct_action', handler_config: { action: 'create_project_task', field_mapping: fieldMapping } });

const send = (ten: TenantFixture, hook: InboundJson, body: unknown) => {
  const s = signed(hook.secret!, body);
  return receive(t, ten.slug, hook.slug, s);
};

const taskCount = async (tenant: string) =>
  Number((await t.database.db.selectFrom('project_tasks').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

describe('create_project_task', () => {
  it('creates the task in the first phase by default through the projects service: project.task.created goes out', async () => {
    const ten = await makeTenant(t);
    const tech = await makeUser(t, ten.tenant, { role: 'Technician' });
    const project = await makeProject(ten.admin);
    const first = await makePhase(ten.admin, project.project_id, { phase_name: 'First' });
    await makePhase(ten.admin, project.project_id, { phase_name: 'Second' });
    const hook = await direct(ten.admin, {
      project_id: `"${project.project_id}"`,
      task_name: 'issue.title',
      description: 'issue.body',
      assigned_to: 'issue.owner',
      due_date: 'issue.due',
      estimated_hours: 'issue.estimate',
      external_id: 'issue.key',
    });
    const res = await send(ten, hook, { issue: { key: 'JIRA-1', title: 'Migrate DNS', body: 'All zones', owner: tech.userId, due: '2026-05-01', estimate: 2.5 } });
    expectStatus(res, 200);
    const { result } = res.json();
    expect(result).toMatchObject({ action: 'create_project_task', entity_type: 'project_task', operation: 'created', external_id: 'JIRA-1', project_id: project.project_id, phase_id: first.phase_id });
    const task = ok<Json>(await ten.admin.get(`/api/v1/projects/tasks/${result.entity_id}`));
    expect(task).toMatchObject({ task_name: 'Migrate DNS', description: 'All zones', assigned_to: tech.userId, due_date: '2026-05-01', estimated_hours: 2.5, phase_id: first.phase_id, created_by: ten.adminUserId });
    const events = await eventsOf(t, ten.tenant, result.entity_id);
    expect(events.map((e) => e.event_type)).toEqual(['project.task.created']);
    expect(events[0]!.payload.data).toMatchObject({ project_id: project.project_id, task_id: result.entity_id, task_name: 'Migrate DNS' });

    // The same external id again is refused, not duplicated.
    const again = await send(ten, hook, { issue: { key: 'JIRA-1', title: 'Migrate DNS', body: null, owner: null, due: null, estimate: null } });
    expectError(again, 422, 'UNPROCESSABLE');
    expect(again.json().error.details).toMatchObject({ reason: 'already_exists', entity_id: result.entity_id });
    expect(await taskCount(ten.tenant)).toBe(1);
  });

  it('a named phase of the project; the project by external id; failures write nothing', async () => {
    const ten = await makeTenant(t);
    const project = await makeProject(ten.admin);
    await makePhase(ten.admin, project.project_id);
    const second = await makePhase(ten.admin, project.project_id);
    const withPhase = await direct(ten.admin, { project_id: 'p', phase_id: 'ph', task_name: 'n' });
    const res = await send(ten, withPhase, { p: project.project_id, ph: second.phase_id, n: 'In second' });
    expectStatus(res, 200);
    expect(res.json().result.phase_id).toBe(second.phase_id);

    await t.database.db.insertInto('inbound_external_ids').values({
      tenant: ten.tenant, entity_type: 'project', external_id: 'PRJ-9', entity_id: project.project_id, claim_token: null, claimed_until: null,
      inbound_webhook_id: withPhase.inbound_webhook_id, created_at: new Date(), updated_at: new Date(),
    }).execute();
    const byExternal = await direct(ten.admin, { project_external_id: 'p', task_name: 'n' });
    const mapped = await send(ten, byExternal, { p: 'PRJ-9', n: 'Mapped' });
    expectStatus(mapped, 200);
    expect(mapped.json().result.project_id).toBe(project.project_id);
    const before = await taskCount(ten.tenant);

    const miss = await send(ten, byExternal, { p: 'PRJ-404', n: 'x' });
    expectError(miss, 422, 'UNPROCESSABLE');
    expect(miss.json().error.details).toMatchObject({ reason: 'lookup_failed', entity_type: 'project', external_id: 'PRJ-404' });
    const other = await makeProject(ten.admin);
    const otherPhase = await makePhase(ten.admin, other.project_id);
    expect((await send(ten, withPhase, { p: project.project_id, ph: otherPhase.phase_id, n: 'x' })).statusCode).toBeGreaterThanOrEqual(400);
    expect((await send(ten, withPhase, { p: project.project_id, ph: second.phase_id, n: '   ' })).statusCode).toBeGreaterThanOrEqual(400);
    const empty = await makeProject(ten.admin);
    const noPhase = await send(ten, withPhase, { p: empty.project_id, ph: null, n: 'x' });
    expect(noPhase.statusCode).toBeGreaterThanOrEqual(400);
    const foreign = await makeProject((await makeTenant(t)).admin);
    expect((await send(ten, withPhase, { p: foreign.project_id, ph: second.phase_id, n: 'x' })).statusCode).toBeGreaterThanOrEqual(400);
    expect(await taskCount(ten.tenant)).toBe(before);
  });

  it('is listed with its target fields and needs project_task:create', async () => {
    const ten = await makeTenant(t);
    const actions = (await ten.admin.get('/api/v1/inbound-webhooks/actions')).json().data as { name: string; permissions: string[]; target_fields: { name: string }[] }[];
    const action = actions.find((x) => x.name === 'create_project_task')!;
    expect(action.permissions).toEqual(['project_task:create']);
    expect(action.target_fields.map((f) => f.name)).toEqual(['task_name', 'project_id', 'project_external_id', 'phase_id', 'description', 'assigned_to', 'due_date', 'estimated_hours', 'external_id']);
    const manager = (await makeUser(t, ten.tenant, { role: 'Manager' })).api;
    const res = await manager.post('/api/v1/inbound-webhooks', { name: 'x', slug: 'pt-viewer', auth_type: 'hmac_sha256', handler_type: 'direct_action', handler_config: { action: 'create_project_task', field_mapping: { task_name: 'n', project_id: 'p' } } });
    expect(res.statusCode).toBe(201);
    const role = ok<{ role_id: string }>(await ten.admin.post('/api/v1/roles', { role_name: 'Inbound only', permissions: ['inbound_webhook:create', 'inbound_webhook:read'] }), 201);
    const inboundOnly = await makeUser(t, ten.tenant);
    ok(await ten.admin.post(`/api/v1/users/${inboundOnly.userId}/roles`, { role_ids: [role.role_id] }));
    const refused = await inboundOnly.api.post('/api/v1/inbound-webhooks', { name: 'y', slug: 'pt-finance', auth_type: 'hmac_sha256', handler_type: 'direct_action', handler_config: { action: 'create_project_task', field_mapping: { task_name: 'n', project_id: 'p' } } });
    expectError(refused, 403, 'FORBIDDEN');
    expect(JSON.stringify(refused.json().error)).toContain('project_task:create');
  });
});
