import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, type PhaseJson } from '../../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

async function order(api: Api, projectId: string): Promise<string[]> {
  const res = await api.get(`/api/v1/projects/${projectId}/phases`);
  expectStatus(res, 200);
  const phases = res.json().data as PhaseJson[];
  expect(phases.map((p) => p.position)).toEqual(phases.map((_, i) => i + 1));
  return phases.map((p) => p.phase_name);
}

describe(`project phases (${engine})`, () => {
  it('creates phases last by default or at a position, renumbering the later ones', async () => {
    const { admin } = await makeTenant(t);
    const p = await makeProject(admin);
    const res = await admin.post(`/api/v1/projects/${p.project_id}/phases`, { phase_name: ' Design ', description: 'd', start_date: '2026-01-01', end_date: '2026-01-31' });
    expectStatus(res, 201);
    const design = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/projects/${p.project_id}/phases/${design.phase_id}`);
    expect(design).toMatchObject({ project_id: p.project_id, phase_name: 'Design', description: 'd', start_date: '2026-01-01', end_date: '2026-01-31', position: 1, task_count: 0 });
    await makePhase(admin, p.project_id, { phase_name: 'Build' });
    await makePhase(admin, p.project_id, { phase_name: 'Discovery', position: 1 });
    await makePhase(admin, p.project_id, { phase_name: 'Launch', position: 99 });
    expect(await order(admin, p.project_id)).toEqual(['Discovery', 'Design', 'Build', 'Launch']);
    const page = (await admin.get(`/api/v1/projects/${p.project_id}/phases?limit=2&page=2`)).json();
    expect(page.data.map((x: PhaseJson) => x.phase_name)).toEqual(['Build', 'Launch']);
    expect(page.pagination).toMatchObject({ page: 2, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    expect((await admin.get(`/api/v1/projects/${p.project_id}`)).json().data.phase_count).toBe(4);
  });

  it('PUT edits fields and moves a phase up or down, keeping positions gapless; If-Match honoured', async () => {
    const { admin } = await makeTenant(t);
    const p = await makeProject(admin);
    const [a, , c] = [await makePhase(admin, p.project_id, { phase_name: 'A' }), await makePhase(admin, p.project_id, { phase_name: 'B' }), await makePhase(admin, p.project_id, { phase_name: 'C' })];
    const moved = await admin.put(`/api/v1/projects/${p.project_id}/phases/${c!.phase_id}`, { position: 1, phase_name: 'C2' });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ phase_name: 'C2', position: 1 });
    expect(await order(admin, p.project_id)).toEqual(['C2', 'A', 'B']);
    expectStatus(await admin.put(`/api/v1/projects/${p.project_id}/phases/${c!.phase_id}`, { position: 50 }), 200);
    expect(await order(admin, p.project_id)).toEqual(['A', 'B', 'C2']);
    const etag = moved.headers.etag as string;
    expectError(await admin.put(`/api/v1/projects/${p.project_id}/phases/${a.phase_id}`, { phase_name: 'x' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(`/api/v1/projects/${p.project_id}/phases/${c!.phase_id}`, { phase_name: 'x' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expect(await order(admin, p.project_id)).toEqual(['A', 'B', 'C2']);
  });

  it('DELETE: 409 for a phase with tasks unless force=true; the gap closes', async () => {
    const { admin, tenant } = await makeTenant(t);
    const p = await makeProject(admin);
    const a = await makePhase(admin, p.project_id, { phase_name: 'A' });
    const b = await makePhase(admin, p.project_id, { phase_name: 'B' });
    await makePhase(admin, p.project_id, { phase_name: 'C' });
    const task = await makeTask(admin, p.project_id, b.phase_id);
    expectError(await admin.delete(`/api/v1/projects/${p.project_id}/phases/${b.phase_id}`), 409, 'CONFLICT');
    expectStatus(await admin.get(`/api/v1/projects/tasks/${task.task_id}`), 200);
    expect((await admin.delete(`/api/v1/projects/${p.project_id}/phases/${a.phase_id}`)).statusCode).toBe(204);
    expect(await order(admin, p.project_id)).toEqual(['B', 'C']);
    expectError(await admin.delete(`/api/v1/projects/${p.project_id}/phases/${b.phase_id}?force=maybe`), 400, 'VALIDATION_ERROR');
    expect((await admin.delete(`/api/v1/projects/${p.project_id}/phases/${b.phase_id}?force=true`)).statusCode).toBe(204);
    expect(await order(admin, p.project_id)).toEqual(['C']);
    expectError(await admin.get(`/api/v1/projects/tasks/${task.task_id}`), 404, 'NOT_FOUND');
    const left = await t.database.db.selectFrom('project_tasks').select('task_id').where('tenant', '=', tenant).execute();
    expect(left).toEqual([]);
  });

  it('400 for bad bodies and params', async () => {
    const { admin } = await makeTenant(t);
    const p = await makeProject(admin);
    const ph = await makePhase(admin, p.project_id);
    for (const body of [{}, { phase_name: ' ' }, { phase_name: 'x', extra: 1 }, { phase_name: 'x', position: 0 }, { phase_name: 'x', start_date: '2026-02-01', end_date: '2026-01-01' }, { phase_name: 'x', start_date: 'tomorrow' }]) {
      expectError(await admin.post(`/api/v1/projects/${p.project_id}/phases`, body), 400, 'VALIDATION_ERROR');
    }
    for (const body of [{}, { phase_name: '' }, { position: -1 }, { end_date: '1999-01-01', start_date: '2000-01-01' }, { project_id: randomId() }]) {
      expectError(await admin.put(`/api/v1/projects/${p.project_id}/phases/${ph.phase_id}`, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.get(`/api/v1/projects/${p.project_id}/phases?limit=0`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/projects/nope/phases'), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/projects/${p.project_id}/phases/nope`, { phase_name: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('401, 403 and 404 (unknown ids, another project\'s phase, another tenant)', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const p = await makeProject(a.admin);
    const other = await makeProject(a.admin);
    const ph = await makePhase(a.admin, p.project_id, { phase_name: 'Kept' });
    const base = `/api/v1/projects/${p.project_id}/phases`;
    const anon = anonymous(t);
    expect((await anon.get(base)).statusCode).toBe(401);
    expect((await anon.post(base, { phase_name: 'x' })).statusCode).toBe(401);
    expect((await anon.put(`${base}/${ph.phase_id}`, { phase_name: 'x' })).statusCode).toBe(401);
    expect((await anon.delete(`${base}/${ph.phase_id}`)).statusCode).toBe(401);
    const viewer = (await makeUser(t, a.tenant, { role: 'Viewer' })).api;
    expectStatus(await viewer.get(base), 200);
    expectError(await viewer.post(base, { phase_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.put(`${base}/${ph.phase_id}`, { phase_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await viewer.delete(`${base}/${ph.phase_id}`), 403, 'FORBIDDEN');
    const tech = (await makeUser(t, a.tenant, { role: 'Technician' })).api;
    expectError(await tech.post(base, { phase_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await (await makeUser(t, a.tenant, {})).api.get(base), 403, 'FORBIDDEN');

    expectError(await a.admin.get(`/api/v1/projects/${randomId()}/phases`), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`/api/v1/projects/${randomId()}/phases`, { phase_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.put(`${base}/${randomId()}`, { phase_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`${base}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.put(`/api/v1/projects/${other.project_id}/phases/${ph.phase_id}`, { phase_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/projects/${other.project_id}/phases/${ph.phase_id}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(base), 404, 'NOT_FOUND');
    expectError(await b.admin.post(base, { phase_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(`${base}/${ph.phase_id}`, { phase_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(`${base}/${ph.phase_id}`), 404, 'NOT_FOUND');
    expect(await order(a.admin, p.project_id)).toEqual(['Kept']);
  });
});
