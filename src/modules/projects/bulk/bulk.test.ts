import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeProject, ok, projectStatuses, rowCount, type Json } from '../../../../test/project-extras-kit.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let viewer: Api;
let statuses: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  viewer = (await makeUser(t, a.tenant, { role: 'Viewer' })).api;
  statuses = await projectStatuses(t, a.tenant);
});
afterAll(async () => t.close());

const types = async (id: string) => (await eventsOf(t, a.tenant, id)).map((e) => e.event_type);

describe('PUT /api/v1/projects/bulk-status', () => {
  it('moves every project and emits, per project, exactly the events a single PUT emits', async () => {
    const [p1, p2, single] = [await makeProject(a.admin), await makeProject(a.admin), await makeProject(a.admin)];
    const res = await a.admin.put('/api/v1/projects/bulk-status', { project_ids: [p2.project_id, p1.project_id], status_id: statuses.Completed });
    const data = ok<Json[]>(res);
    expect(data.map((p) => [p.project_id, p.status_name, p.is_closed])).toEqual([[p2.project_id, 'Completed', true], [p1.project_id, 'Completed', true]]);
    ok(await a.admin.put(`/api/v1/projects/${single.project_id}`, { status_id: statuses.Completed }));
    const expected = await types(single.project_id);
    expect(expected).toEqual(['project.created', 'project.updated', 'project.status_changed', 'project.closed']);
    expect(await types(p1.project_id)).toEqual(expected);
    expect(await types(p2.project_id)).toEqual(expected);
    const updated = (await eventsOf(t, a.tenant, p1.project_id))[1]!;
    expect(updated.payload.changes).toEqual((await eventsOf(t, a.tenant, single.project_id))[1]!.payload.changes);
  });

  it('all or nothing: a missing, another tenant’s or a hidden id changes nothing and each failure is named', async () => {
    const [p1, p2] = [await makeProject(a.admin), await makeProject(a.admin)];
    const foreign = await makeProject(b.admin);
    const missing = randomId();
    const events = await rowCount(t, 'events', a.tenant);
    const res = await a.admin.put('/api/v1/projects/bulk-status', { project_ids: [p1.project_id, missing, p2.project_id, foreign.project_id], status_id: statuses.Active });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json().error.details).toEqual([
      { project_id: missing, code: 'NOT_FOUND', error: `Project '${missing}' not found` },
      { project_id: foreign.project_id, code: 'NOT_FOUND', error: `Project '${foreign.project_id}' not found` },
    ]);
    expect(ok<Json>(await a.admin.get(`/api/v1/projects/${p1.project_id}`)).status_name).toBe('Planning');
    expect(await rowCount(t, 'events', a.tenant)).toBe(events);
    expect(ok<Json>(await b.admin.get(`/api/v1/projects/${foreign.project_id}`)).status_name).toBe('Planning');
  });

  it('400: empty, over 100, duplicate or malformed ids, unknown fields, unknown status', async () => {
    const p = await makeProject(a.admin);
    expectError(await a.admin.put('/api/v1/projects/bulk-status', { project_ids: [], status_id: statuses.Active }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-status', { project_ids: Array.from({ length: 101 }, randomId), status_id: statuses.Active }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-status', { project_ids: [p.project_id, p.project_id], status_id: statuses.Active }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-status', { project_ids: ['x'], status_id: statuses.Active }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-status', { projectIds: [p.project_id], status: 'active' }), 400, 'VALIDATION_ERROR');
    const bad = await a.admin.put('/api/v1/projects/bulk-status', { project_ids: [p.project_id], status_id: randomId() });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json().error.details[0]).toMatchObject({ project_id: p.project_id, code: 'VALIDATION_ERROR' });
  });

  it('401 and 403', async () => {
    const p = await makeProject(a.admin);
    expectError(await anonymous(t).put('/api/v1/projects/bulk-status', { project_ids: [p.project_id], status_id: statuses.Active }), 401, 'UNAUTHORIZED');
    expectError(await viewer.put('/api/v1/projects/bulk-status', { project_ids: [p.project_id], status_id: statuses.Active }), 403, 'FORBIDDEN');
  });
});

describe('PUT /api/v1/projects/bulk-assign', () => {
  it('assigns user and team; emits project.updated and project.assigned per project', async () => {
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const team = ok<{ team_id: string }>(await a.admin.post('/api/v1/teams', { team_name: `Bulk team ${randomId().slice(0, 6)}` }), 201);
    const [p1, p2] = [await makeProject(a.admin), await makeProject(a.admin)];
    const data = ok<Json[]>(await a.admin.put('/api/v1/projects/bulk-assign', { project_ids: [p1.project_id, p2.project_id], assigned_to: tech.userId, assigned_team_id: team.team_id }));
    expect(data.map((p) => [p.assigned_to, p.assigned_team_id])).toEqual([[tech.userId, team.team_id], [tech.userId, team.team_id]]);
    expect(await types(p1.project_id)).toEqual(['project.created', 'project.updated', 'project.assigned']);
    const unassigned = ok<Json[]>(await a.admin.put('/api/v1/projects/bulk-assign', { project_ids: [p1.project_id], assigned_to: null }));
    expect(unassigned[0]).toMatchObject({ assigned_to: null, assigned_team_id: team.team_id });
  });

  it('400 without assignee or team, for an inactive or portal user; 401; 403; 404', async () => {
    const p = await makeProject(a.admin);
    expectError(await a.admin.put('/api/v1/projects/bulk-assign', { project_ids: [p.project_id] }), 400, 'VALIDATION_ERROR');
    const client = await makeClient(a.admin);
    const portal = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    expectError(await a.admin.put('/api/v1/projects/bulk-assign', { project_ids: [p.project_id], assigned_to: portal.userId }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).put('/api/v1/projects/bulk-assign', { project_ids: [p.project_id], assigned_to: null }), 401, 'UNAUTHORIZED');
    expectError(await viewer.put('/api/v1/projects/bulk-assign', { project_ids: [p.project_id], assigned_to: null }), 403, 'FORBIDDEN');
    expectError(await b.admin.put('/api/v1/projects/bulk-assign', { project_ids: [p.project_id], assigned_to: null }), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/projects/bulk-update', () => {
  it('applies the same fields to every project', async () => {
    const [p1, p2] = [await makeProject(a.admin), await makeProject(a.admin)];
    const data = ok<Json[]>(await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [p1.project_id, p2.project_id], fields: { budgeted_hours: 12.5, end_date: '2026-12-31' } }));
    expect(data.map((p) => [p.budgeted_hours, p.end_date])).toEqual([[12.5, '2026-12-31'], [12.5, '2026-12-31']]);
    const updated = (await eventsOf(t, a.tenant, p2.project_id)).filter((e) => e.event_type === 'project.updated');
    expect(updated.map((e) => e.payload.changes)).toEqual([{ budgeted_hours: { previous: null, new: 12.5 }, end_date: { previous: null, new: '2026-12-31' } }]);
  });

  it('one project refusing the change (end before start) fails all with 422 when failures differ, 400 when all alike', async () => {
    const late = await makeProject(a.admin, { start_date: '2027-06-01' });
    const fine = await makeProject(a.admin);
    const res = await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [fine.project_id, late.project_id], fields: { end_date: '2027-01-01' } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.details.map((d: Json) => d.project_id)).toEqual([late.project_id]);
    expect(ok<Json>(await a.admin.get(`/api/v1/projects/${fine.project_id}`)).end_date).toBeNull();
    const mixed = await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [fine.project_id, late.project_id, randomId()], fields: { end_date: '2027-01-01' } });
    expectError(mixed, 422, 'UNPROCESSABLE');
    expect(mixed.json().error.details.map((d: Json) => d.code)).toEqual(['VALIDATION_ERROR', 'NOT_FOUND']);
  });

  it('400 for empty or unknown fields; 401; 403; 404', async () => {
    const p = await makeProject(a.admin);
    expectError(await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [p.project_id], fields: {} }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [p.project_id], fields: { tags: ['x'] } }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [p.project_id], updates: { project_name: 'x' } }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).put('/api/v1/projects/bulk-update', { project_ids: [p.project_id], fields: { project_name: 'x' } }), 401, 'UNAUTHORIZED');
    expectError(await viewer.put('/api/v1/projects/bulk-update', { project_ids: [p.project_id], fields: { project_name: 'x' } }), 403, 'FORBIDDEN');
    expectError(await a.admin.put('/api/v1/projects/bulk-update', { project_ids: [randomId()], fields: { project_name: 'x' } }), 404, 'NOT_FOUND');
  });
});
