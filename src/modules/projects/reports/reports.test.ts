import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient } from '../../../../test/client-factories.ts';
import { makePhase, makeProject, makeTask, ok, projectStatuses, type Json } from '../../../../test/project-extras-kit.ts';
import { hashApiKey } from '../../../platform/auth/api-key-secret.ts';
import { createReportsService, EXPORT_COLUMNS } from './reports.service.ts';
import { parseCsv } from '../../../../test/csv.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let noRole: Api;
let clientId: string;
let statuses: Record<string, string>;
const ids: Record<string, string> = {};
beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  noRole = (await makeUser(t, a.tenant)).api;
  statuses = await projectStatuses(t, a.tenant);
  const client = await makeClient(a.admin, { client_name: 'Zeta, "Quoted" Ltd' });
  clientId = client.client_id;
  ids.tricky = (await makeProject(a.admin, { project_name: '=HYPERLINK("http://evil","x")', description: 'line one\nline, two', client_id: clientId, budgeted_hours: 10 })).project_id;
  ids.overdue = (await makeProject(a.admin, { project_name: 'Overdue 50% done', end_date: '2020-01-01', budgeted_hours: 2.5, status_id: statuses.Active })).project_id;
  ids.closed = (await makeProject(a.admin, { project_name: 'Closed old', end_date: '2020-01-01', status_id: statuses.Completed })).project_id;
  const phase = await makePhase(a.admin, ids.tricky);
  await makeTask(a.admin, ids.tricky, phase.phase_id, { estimated_hours: 3, actual_hours: 1.25 });
  await makeProject(b.admin, { project_name: 'Other tenant Overdue' });
});
afterAll(async () => t.close());

describe('GET /api/v1/projects/export', () => {
  it('streams CSV with a header row, RFC 4180 quoting and neutralised formulas, as a download', async () => {
    const res = await a.admin.get('/api/v1/projects/export?format=csv');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="projects-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual([...EXPORT_COLUMNS]);
    expect(rows).toHaveLength(4);
    const col = (name: string) => EXPORT_COLUMNS.indexOf(name as (typeof EXPORT_COLUMNS)[number]);
    const tricky = rows.find((r) => r[col('project_id')] === ids.tricky)!;
    expect(tricky[col('project_name')]).toBe('\'=HYPERLINK("http://evil","x")');
    expect(tricky[col('description')]).toBe('line one\nline, two');
    expect(tricky[col('client_name')]).toBe('Zeta, "Quoted" Ltd');
    expect(tricky[col('budgeted_hours')]).toBe('10');
    expect(tricky[col('actual_hours')]).toBe('1.25');
    expect(rows.slice(1).map((r) => r[col('project_number')])).toEqual(['P-000001', 'P-000002', 'P-000003']);
    expect(res.body).not.toContain('Other tenant');
  });

  it('JSON, with the list filters applied', async () => {
    const res = await a.admin.get(`/api/v1/projects/export?format=json&is_closed=false&search=${encodeURIComponent('50%')}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/\.json"$/);
    expect(res.json().data.map((p: Json) => p.project_id)).toEqual([ids.overdue]);
    const byClient = (await a.admin.get(`/api/v1/projects/export?format=json&client_id=${clientId}`)).json();
    expect(byClient.data.map((p: Json) => p.project_id)).toEqual([ids.tricky]);
    expect((await b.admin.get('/api/v1/projects/export?format=json&search=Closed')).json()).toEqual({ data: [] });
  });

  it('pages through the projects in batches without repeating or losing any', async () => {
    const tenant = await makeTenant(t);
    for (let i = 0; i < 5; i++) await makeProject(tenant.admin, { project_name: `Batch ${i}` });
    const actor = (await t.app.keyCache.resolve(hashApiKey(tenant.admin.key)))!.actor;
    const { stream } = await createReportsService({ db: t.database.db, exportBatch: 2 }).exportProjects(actor, { format: 'json' });
    let body = '';
    for await (const chunk of stream) body += String(chunk);
    expect(JSON.parse(body).data.map((p: Json) => p.project_name)).toEqual(['Batch 0', 'Batch 1', 'Batch 2', 'Batch 3', 'Batch 4']);
  });

  it('a query the database refuses is an error response, not a cut-off download', async () => {
    const res = await a.admin.get('/api/v1/projects/export?search=%00');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBeDefined();
  });

  it('client-portal keys export their own client’s projects only', async () => {
    const portal = (await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId })).api;
    expect((await portal.get('/api/v1/projects/export?format=json')).json().data.map((p: Json) => p.project_id)).toEqual([ids.tricky]);
  });

  it('400, 401, 403', async () => {
    expectError(await a.admin.get('/api/v1/projects/export?format=xlsx'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get('/api/v1/projects/export?fields=x'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/projects/export'), 401, 'UNAUTHORIZED');
    expectError(await noRole.get('/api/v1/projects/export'), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/projects/search', () => {
  it('matches name, number, description and client name literally; exact number first; paginated', async () => {
    const names = async (q: string, extra = '') => ok<Json[]>(await a.admin.get(`/api/v1/projects/search?query=${encodeURIComponent(q)}${extra}`)).map((p) => p.project_id);
    expect(await names('zeta, "quoted"')).toEqual([ids.tricky]);
    expect(await names('line, two')).toEqual([ids.tricky]);
    expect(await names('P-000002')).toEqual([ids.overdue]);
    expect(await names('50%')).toEqual([ids.overdue]);
    expect(await names('_%')).toEqual([]);
    expect(await names('old', '&is_closed=true')).toEqual([ids.closed]);
    const page = await a.admin.get('/api/v1/projects/search?query=o&limit=1&page=2');
    expect(page.json().pagination).toMatchObject({ page: 2, limit: 1, hasPrev: true });
    expect(ok<Json[]>(await b.admin.get('/api/v1/projects/search?query=overdue')).map((p) => p.project_name)).toEqual(['Other tenant Overdue']);
  });

  it('400 without query or with bad parameters; 401; 403', async () => {
    expectError(await a.admin.get('/api/v1/projects/search'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get('/api/v1/projects/search?query='), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`/api/v1/projects/search?query=${'x'.repeat(201)}`), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get('/api/v1/projects/search?query=x&limit=101'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/projects/search?query=x'), 401, 'UNAUTHORIZED');
    expectError(await noRole.get('/api/v1/projects/search?query=x'), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/projects/stats', () => {
  it('counts by status, open/closed, overdue and hour totals, honouring the filters', async () => {
    const stats = ok<Json>(await a.admin.get('/api/v1/projects/stats'));
    expect(stats).toMatchObject({ total_projects: 3, open_projects: 2, closed_projects: 1, overdue_projects: 1, total_budgeted_hours: 12.5, total_estimated_hours: 3, total_actual_hours: 1.25 });
    expect(stats.by_status.map((s: Json) => [s.status_name, s.project_count])).toEqual([['Planning', 1], ['Active', 1], ['On Hold', 0], ['Completed', 1], ['Cancelled', 0]]);
    const filtered = ok<Json>(await a.admin.get(`/api/v1/projects/stats?client_id=${clientId}`));
    expect(filtered).toMatchObject({ total_projects: 1, overdue_projects: 0, total_budgeted_hours: 10, total_actual_hours: 1.25 });
    expect(ok<Json>(await b.admin.get('/api/v1/projects/stats'))).toMatchObject({ total_projects: 1, total_budgeted_hours: 0 });
  });

  it('400, 401, 403', async () => {
    expectError(await a.admin.get('/api/v1/projects/stats?is_closed=maybe'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get('/api/v1/projects/stats?page=1'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/projects/stats'), 401, 'UNAUTHORIZED');
    expectError(await noRole.get('/api/v1/projects/stats'), 403, 'FORBIDDEN');
  });
});
