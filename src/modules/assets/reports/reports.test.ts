import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { daysFromToday, makeAsset } from '../../../../test/asset-factories.ts';
import { parseCsv } from '../../../../test/csv.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('list filters, export, search and stats agree', () => {
  it('filters by warranty status with the 30-day window; totals match filters everywhere', async () => {
    const { admin } = await makeTenant(t);
    const acme = await makeClient(admin, { client_name: unique('Acme, "Inc"') });
    const other = await makeClient(admin);
    await makeAsset(admin, { client_id: acme.client_id, name: '=cmd|calc', warranty_end_date: daysFromToday(30), location: 'Line1\nLine2' });
    await makeAsset(admin, { client_id: acme.client_id, warranty_end_date: daysFromToday(31), asset_type: 'server' });
    await makeAsset(admin, { client_id: acme.client_id, warranty_end_date: daysFromToday(-1), status: 'retired' });
    await makeAsset(admin, { client_id: other.client_id });
    const total = async (q: string) => (await admin.get(`/api/v1/assets?${q}`)).json().pagination.total;
    expect(await total('warranty_status=expiring_soon')).toBe(1);
    expect(await total('warranty_status=active')).toBe(1);
    expect(await total('warranty_status=expired')).toBe(1);
    expect(await total('warranty_status=none')).toBe(1);
    expect(await total(`client_id=${acme.client_id}&status=active`)).toBe(2);
    expect(await total('search=acme')).toBe(3);
    expect(await total('asset_type=server')).toBe(1);
    const page = await admin.get(`/api/v1/assets?client_id=${acme.client_id}&sort=warranty_end_date&order=asc&limit=2`);
    expect(page.json().data.map((a: { warranty_status: string }) => a.warranty_status)).toEqual(['expired', 'expiring_soon']);
    expect(page.json().pagination).toMatchObject({ total: 3, totalPages: 2, hasNext: true });

    const stats = (await admin.get(`/api/v1/assets/stats?client_id=${acme.client_id}`)).json().data;
    expect(stats).toMatchObject({
      total_assets: 3,
      assets_by_status: { active: 2, retired: 1, lost: 0 },
      assets_by_type: { workstation: 2, server: 1 },
      assets_by_warranty_status: { none: 0, active: 1, expiring_soon: 1, expired: 1 },
      assets_by_client: [{ client_id: acme.client_id, client_name: acme.client_name, count: 3 }],
      clients_truncated: false,
      warranty_expiring_soon_days: 30,
    });
    expect((await admin.get('/api/v1/assets/stats')).json().data.total_assets).toBe(4);

    const csv = await admin.get(`/api/v1/assets/export?client_id=${acme.client_id}&sort=name&order=asc`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="assets.csv"');
    const rows = parseCsv(csv.body);
    expect(rows).toHaveLength(4);
    const header = rows[0]!;
    expect(header.slice(0, 3)).toEqual(['asset_id', 'asset_tag', 'name']);
    const formula = rows.find((r) => r[header.indexOf('name')]!.includes('cmd'))!;
    expect(formula[header.indexOf('name')]).toBe("'=cmd|calc");
    expect(formula[header.indexOf('location')]).toBe('Line1\nLine2');
    expect(formula[header.indexOf('client_name')]).toBe(acme.client_name);
    const json = await admin.get('/api/v1/assets/export?format=json&warranty_status=expired');
    expect(json.headers['content-type']).toContain('application/json');
    expect(json.json().data.map((a: { status: string }) => a.status)).toEqual(['retired']);
    expect((await admin.get('/api/v1/assets/export?status=lost')).body).toBe(`${header.join(',')}\r\n`);
  });

  it('search ranks the exact tag first and honours the filters; portal keys see only their client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeAsset(admin, { client_id: client.client_id, name: 'Printer ZX-10 spare', asset_tag: unique('P') });
    const exact = await makeAsset(admin, { client_id: client.client_id, name: 'Main printer', asset_tag: 'ZX-10' });
    const elsewhere = await makeAsset(admin, { name: 'ZX-10 clone', serial_number: 'zx-10-b' });
    const res = await admin.get('/api/v1/assets/search?query=zx-10');
    expect(res.statusCode).toBe(200);
    expect(res.json().data[0].asset_id).toBe(exact.asset_id);
    expect(res.json().data).toHaveLength(3);
    expect((await admin.get(`/api/v1/assets/search?query=zx-10&client_id=${client.client_id}&limit=1`)).json().data.map((a: { asset_id: string }) => a.asset_id)).toEqual([exact.asset_id]);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: elsewhere.client_id });
    expect((await portal.api.get('/api/v1/assets/search?query=zx')).json().data.map((a: { asset_id: string }) => a.asset_id)).toEqual([elsewhere.asset_id]);
    expect((await portal.api.get('/api/v1/assets/stats')).json().data.total_assets).toBe(1);
    const exported = await portal.api.get('/api/v1/assets/export?format=json');
    expect(exported.json().data.map((a: { asset_id: string }) => a.asset_id)).toEqual([elsewhere.asset_id]);
    expectError(await admin.get('/api/v1/assets/search'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/assets/search?query='), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/assets/export?format=xlsx'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/assets/stats?status=gone'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/assets?warranty_status=soonish'), 400, 'VALIDATION_ERROR');
    for (const url of ['/api/v1/assets/search?query=x', '/api/v1/assets/export', '/api/v1/assets/stats', `/api/v1/assets/${exact.asset_id}/summary`]) {
      expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
      const finance = await makeUser(t, tenant, { role: 'Finance' });
      expectError(await finance.api.get(url), 403, 'FORBIDDEN');
    }
  });
});

describe('GET /api/v1/assets/{id}/summary', () => {
  it('reports warranty, maintenance outlook, RMM agent status and a health verdict', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin, { warranty_end_date: daysFromToday(12) });
    const first = (await admin.get(`/api/v1/assets/${asset.asset_id}/summary`)).json().data;
    expect(first).toEqual({
      asset_id: asset.asset_id, health_status: 'unknown', health_reasons: ['No RMM agent linked'], agent_status: null, open_tickets_count: 0,
      warranty_end_date: daysFromToday(12), warranty_status: 'expiring_soon', warranty_days_remaining: 12,
      overdue_maintenance_count: 0, next_maintenance_due: null, last_maintenance_at: null,
    });
    await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance`, { schedule_name: 'Late', maintenance_type: 'inspection', frequency: 'yearly', start_date: daysFromToday(-3) });
    await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance`, { schedule_name: 'Soon', maintenance_type: 'inspection', frequency: 'yearly', start_date: daysFromToday(9) });
    const db = t.database.db;
    const integration = randomId();
    await db.insertInto('rmm_integrations').values({ tenant, integration_id: integration, provider: 'ninjaone', name: 'Ninja', base_url: 'https://rmm.example', credentials_enc: 'x' } as never).execute();
    await db.insertInto('asset_rmm_links').values({ tenant, asset_id: asset.asset_id, integration_id: integration, external_device_id: 'dev-1', agent_status: 'offline' } as never).execute();
    const second = (await admin.get(`/api/v1/assets/${asset.asset_id}/summary`)).json().data;
    expect(second).toMatchObject({ health_status: 'critical', agent_status: 'offline', overdue_maintenance_count: 1, next_maintenance_due: daysFromToday(-3) });
    await db.updateTable('asset_rmm_links').set({ agent_status: 'online' }).where('tenant', '=', tenant).execute();
    const third = (await admin.get(`/api/v1/assets/${asset.asset_id}/summary`)).json().data;
    expect(third).toMatchObject({ health_status: 'warning', health_reasons: ['1 maintenance schedule(s) overdue'] });
    // Deleting the asset works with an RMM link in place (the link cascades).
    expect((await admin.delete(`/api/v1/assets/${asset.asset_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/v1/assets/${asset.asset_id}/summary`), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    const theirs = await makeAsset(other.admin);
    expectError(await admin.get(`/api/v1/assets/${theirs.asset_id}/summary`), 404, 'NOT_FOUND');
    expectError(await admin.get('/api/v1/assets/nope/summary'), 400, 'VALIDATION_ERROR');
  });
});
