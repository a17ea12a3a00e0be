import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../../test/client-factories.ts';
import { daysFromToday, makeAsset } from '../../../../test/asset-factories.ts';
import { recordAssetHistory } from '../index.ts';
import { addPeriods, nextOccurrence } from './maintenance.dates.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const schedule = (over: Record<string, unknown> = {}) => ({ schedule_name: 'Clean fans', maintenance_type: 'preventive', frequency: 'monthly', start_date: daysFromToday(-40), ...over });

describe('maintenance dates', () => {
  it('adds periods, clamping month ends, and finds the next occurrence after a date', () => {
    expect(addPeriods('2026-01-31', 'monthly', 1)).toBe('2026-02-28');
    expect(addPeriods('2024-01-31', 'monthly', 1)).toBe('2024-02-29');
    expect(addPeriods('2026-01-15', 'quarterly', 1)).toBe('2026-04-15');
    expect(addPeriods('2026-01-15', 'weekly', 2)).toBe('2026-01-29');
    expect(addPeriods('2026-01-15', 'custom', 10)).toBe('2026-01-25');
    expect(addPeriods('2024-02-29', 'yearly', 1)).toBe('2025-02-28');
    expect(nextOccurrence('2026-01-01', 'monthly', 1, null)).toBe('2026-01-01');
    expect(nextOccurrence('2026-01-01', 'monthly', 1, '2025-12-01')).toBe('2026-01-01');
    expect(nextOccurrence('2026-01-01', 'monthly', 1, '2026-01-01')).toBe('2026-02-01');
    expect(nextOccurrence('2026-01-01', 'monthly', 1, '2026-05-20')).toBe('2026-06-01');
    expect(nextOccurrence('2026-01-01', 'daily', 3, '2026-01-10')).toBe('2026-01-13');
    expect(nextOccurrence('2020-01-01', 'weekly', 1, '2026-11-21')).toBe('2026-11-25');
  });
});

describe('maintenance schedules', () => {
  it('creates (next_due = start_date, overdue flag, event), lists, updates (recomputes next_due) and deletes', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const res = await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance`, schedule({ description: 'Dust' }));
    expect(res.statusCode, res.body).toBe(201);
    const s = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/assets/maintenance/${s.schedule_id}`);
    expect(s).toMatchObject({ asset_id: asset.asset_id, next_due: daysFromToday(-40), is_overdue: true, frequency_interval: 1, is_active: true, last_performed_at: null });
    const events = await eventsOf(t, tenant, asset.asset_id);
    expect(events.at(-1)).toMatchObject({ event_type: 'asset.maintenance.scheduled', payload: { schedule: { schedule_id: s.schedule_id }, data: { asset_id: asset.asset_id } } });
    await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance`, schedule({ schedule_name: 'Later', start_date: daysFromToday(5) }));
    const list = await admin.get(`/api/v1/assets/${asset.asset_id}/maintenance`);
    expect(list.json().data.map((x: { schedule_name: string }) => x.schedule_name)).toEqual(['Clean fans', 'Later']);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/maintenance?is_overdue=true`)).json().pagination.total).toBe(1);
    const start = daysFromToday(3);
    const upd = await admin.put(`/api/v1/assets/maintenance/${s.schedule_id}`, { start_date: start, frequency: 'weekly' }, { 'if-match': res.headers.etag as string });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({ start_date: start, next_due: start, frequency: 'weekly', is_overdue: false });
    expectError(await admin.put(`/api/v1/assets/maintenance/${s.schedule_id}`, { schedule_name: 'X' }, { 'if-match': res.headers.etag as string }), 412, 'PRECONDITION_FAILED');
    expect((await admin.delete(`/api/v1/assets/maintenance/${s.schedule_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`/api/v1/assets/maintenance/${s.schedule_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/maintenance`)).json().pagination.total).toBe(1);
  });

  it('400 on bad bodies, 401, 403, 404 for unknown and foreign assets and schedules', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const url = `/api/v1/assets/${asset.asset_id}/maintenance`;
    for (const body of [schedule({ frequency: 'hourly' }), schedule({ maintenance_type: 'magic' }), schedule({ frequency_interval: 0 }), schedule({ start_date: 'soon' }), schedule({ extra: true }), schedule({ schedule_name: '  ' })]) {
      expectError(await admin.post(url, body), 400, 'VALIDATION_ERROR');
    }
    const s = (await admin.post(url, schedule())).json().data;
    expectError(await admin.put(`/api/v1/assets/maintenance/${s.schedule_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(url)).statusCode).toBe(200);
    expectError(await viewer.api.post(url, schedule()), 403, 'FORBIDDEN');
    expectError(await viewer.api.put(`/api/v1/assets/maintenance/${s.schedule_id}`, { schedule_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(`/api/v1/assets/maintenance/${s.schedule_id}`), 403, 'FORBIDDEN');
    expectError(await admin.post(`/api/v1/assets/${randomId()}/maintenance`, schedule()), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/v1/assets/maintenance/${randomId()}`, { schedule_name: 'X' }), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.get(url), 404, 'NOT_FOUND');
    expectError(await other.admin.put(`/api/v1/assets/maintenance/${s.schedule_id}`, { schedule_name: 'Hijack' }), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`/api/v1/assets/maintenance/${s.schedule_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(url)).json().data[0].schedule_name).toBe('Clean fans');
  });
});

describe('POST /api/v1/assets/{id}/maintenance/record and GET /api/v1/assets/{id}/history', () => {
  it('records work, advances the schedule past it, emits asset.maintenance.completed; history is newest first with RMM entries', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const s = (await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance`, schedule())).json().data;
    const res = await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance/record`, { schedule_id: s.schedule_id, description: 'Blew out dust', duration_minutes: 30, cost_cents: 4500 });
    expect(res.statusCode, res.body).toBe(201);
    const { entry, schedule: after } = res.json().data;
    expect(entry).toMatchObject({ entry_type: 'maintenance', schedule_id: s.schedule_id, schedule_name: 'Clean fans', maintenance_type: 'preventive', description: 'Blew out dust', performed_by: adminUserId, details: { duration_minutes: 30, cost_cents: 4500 } });
    expect(after.next_due > daysFromToday(0)).toBe(true);
    expect(after.next_due <= daysFromToday(31)).toBe(true);
    expect(after.is_overdue).toBe(false);
    expect(after.last_performed_at).toBe(entry.performed_at);
    const events = await eventsOf(t, tenant, asset.asset_id);
    expect(events.at(-1)).toMatchObject({ event_type: 'asset.maintenance.completed', payload: { maintenance: { history_id: entry.history_id } } });

    const adhoc = await admin.post(`/api/v1/assets/${asset.asset_id}/maintenance/record`, { maintenance_type: 'corrective', performed_at: new Date(Date.now() - 86_400_000).toISOString() });
    expect(adhoc.statusCode, adhoc.body).toBe(201);
    expect(adhoc.json().data).toMatchObject({ schedule: null, entry: { description: 'corrective maintenance performed', schedule_id: null } });
    await recordAssetHistory(t.database.db, tenant, { asset_id: asset.asset_id, entry_type: 'rmm_command', command: 'reboot', description: 'Reboot sent', performed_at: new Date(Date.now() + 1000) });

    const history = await admin.get(`/api/v1/assets/${asset.asset_id}/history`);
    expect(history.statusCode).toBe(200);
    expect(history.json().data.map((h: { entry_type: string; command: string | null; maintenance_type: string | null }) => h.command ?? h.maintenance_type)).toEqual(['reboot', 'preventive', 'corrective']);
    expect(history.json().pagination.total).toBe(3);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/history?entry_type=maintenance&limit=1`)).json().pagination).toMatchObject({ total: 2, totalPages: 2 });
  });

  it('400 (type missing, schedule of another asset, future date, unknown user), 401, 403, 404', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const otherAsset = await makeAsset(admin);
    const foreign = (await admin.post(`/api/v1/assets/${otherAsset.asset_id}/maintenance`, schedule())).json().data;
    const url = `/api/v1/assets/${asset.asset_id}/maintenance/record`;
    expectError(await admin.post(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { schedule_id: foreign.schedule_id }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { maintenance_type: 'inspection', performed_at: new Date(Date.now() + 86_400_000).toISOString() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { maintenance_type: 'inspection', performed_by: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(url, { maintenance_type: 'inspection' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(url, { maintenance_type: 'inspection' }), 403, 'FORBIDDEN');
    expect((await viewer.api.get(`/api/v1/assets/${asset.asset_id}/history`)).statusCode).toBe(200);
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await finance.api.get(`/api/v1/assets/${asset.asset_id}/history`), 403, 'FORBIDDEN');
    expectError(await admin.post(`/api/v1/assets/${randomId()}/maintenance/record`, { maintenance_type: 'inspection' }), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/assets/${randomId()}/history`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/assets/${asset.asset_id}/history?entry_type=other`), 400, 'VALIDATION_ERROR');
    const other = await makeTenant(t);
    expectError(await other.admin.post(url, { maintenance_type: 'inspection' }), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/history`)).json().data).toEqual([]);
  });
});
