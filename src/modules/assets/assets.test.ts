import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId, tombstone } from '../../../test/client-factories.ts';
import { assetRow, daysFromToday, makeAsset, searchDoc } from '../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('POST /api/v1/assets', () => {
  it('creates an asset with client_name, computed warranty_status, an asset.created event and a search entry', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: unique('Acme') });
    const res = await admin.post('/api/v1/assets', {
      client_id: client.client_id, asset_type: 'workstation', asset_tag: ' WS-001 ', name: 'Reception PC', status: 'active',
      serial_number: 'SN123', location: 'Front desk', manufacturer: 'Dell', model: 'OptiPlex', purchase_date: '2025-01-02',
      warranty_end_date: daysFromToday(10), attributes: { os_type: 'windows', cpu_cores: 8, ram_gb: 15.5 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const asset = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/assets/${asset.asset_id}`);
    expect(res.headers.etag).toBeDefined();
    expect(asset).toMatchObject({
      client_id: client.client_id, client_name: client.client_name, asset_type: 'workstation', asset_tag: 'WS-001', name: 'Reception PC',
      status: 'active', serial_number: 'SN123', location: 'Front desk', manufacturer: 'Dell', model: 'OptiPlex', purchase_date: '2025-01-02',
      warranty_status: 'expiring_soon', attributes: { os_type: 'windows', cpu_cores: 8, ram_gb: 15.5 }, notes_updated_at: null,
    });
    const events = await eventsOf(t, tenant, asset.asset_id);
    expect(events.map((e) => e.event_type)).toEqual(['asset.created']);
    expect(events[0]!.payload.data).toMatchObject({ asset_id: asset.asset_id, asset_tag: 'WS-001', client_name: client.client_name, warranty_status: 'expiring_soon' });
    expect(Object.keys(events[0]!.payload.data as object)).not.toContain('attributes');
    const doc = await searchDoc(t, tenant, asset.asset_id);
    expect(doc).toMatchObject({ title: 'Reception PC', subtitle: `${client.client_name} | WS-001`, identifier: 'ws-001', client_id: client.client_id, url: `/assets/${asset.asset_id}` });
    expect(doc!.body).toContain('SN123');
  });

  it('validates the body: required fields, status enum, unknown fields, attributes against the type (400 naming the attribute)', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const base = { client_id: client.client_id, asset_type: 'workstation', asset_tag: unique('T'), name: 'X', status: 'active' };
    for (const body of [
      { ...base, name: undefined }, { ...base, status: 'broken' }, { ...base, extra: 1 }, { ...base, name: '   ' },
      { ...base, warranty_end_date: '2026-02-30' }, { ...base, asset_type: 'Not A Slug' },
    ]) {
      expectError(await admin.post('/api/v1/assets', body), 400, 'VALIDATION_ERROR');
    }
    const unknownAttr = await admin.post('/api/v1/assets', { ...base, attributes: { colour: 'red' } });
    expectError(unknownAttr, 400, 'VALIDATION_ERROR');
    expect(unknownAttr.json().error.message).toContain('colour');
    const wrongType = await admin.post('/api/v1/assets', { ...base, attributes: { cpu_cores: 2.5 } });
    expectError(wrongType, 400, 'VALIDATION_ERROR');
    expect(wrongType.json().error.message).toContain('cpu_cores');
    const badEnum = await admin.post('/api/v1/assets', { ...base, attributes: { os_type: 'beos' } });
    expect(badEnum.json().error.message).toContain('os_type');
    const noType = await admin.post('/api/v1/assets', { ...base, asset_type: 'spaceship' });
    expectError(noType, 400, 'VALIDATION_ERROR');
    expect(noType.json().error.message).toContain('spaceship');
    const noClient = await admin.post('/api/v1/assets', { ...base, client_id: randomId() });
    expectError(noClient, 400, 'VALIDATION_ERROR');
    expect(noClient.json().error.message).toContain('client_id');
  });

  it('409 on a duplicate tag (case-insensitive) and on a merged client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin, { asset_tag: 'DUP-1' });
    expectError(await admin.post('/api/v1/assets', { client_id: a.client_id, asset_type: 'server', asset_tag: 'dup-1', name: 'Other', status: 'active' }), 409, 'CONFLICT');
    const target = await makeClient(admin);
    const merged = await makeClient(admin);
    await tombstone(t, tenant, merged.client_id, target.client_id);
    expectError(await admin.post('/api/v1/assets', { client_id: merged.client_id, asset_type: 'server', asset_tag: unique('M'), name: 'Other', status: 'active' }), 409, 'CONFLICT');
  });

  it('401 without a key, 403 without asset:create', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const body = { client_id: client.client_id, asset_type: 'server', asset_tag: unique('T'), name: 'X', status: 'active' };
    expectError(await anonymous(t).post('/api/v1/assets', body), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post('/api/v1/assets', body), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/assets/{id}', () => {
  it('returns the asset with an ETag; 404 for unknown ids, other tenants and other clients of portal keys', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const res = await admin.get(`/api/v1/assets/${asset.asset_id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(asset);
    expect(res.headers.etag).toBeDefined();
    expectError(await admin.get(`/api/v1/assets/${randomId()}`), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.get(`/api/v1/assets/${asset.asset_id}`), 404, 'NOT_FOUND');
    const mine = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: mine.client_id });
    expectError(await portal.api.get(`/api/v1/assets/${asset.asset_id}`), 404, 'NOT_FOUND');
    const own = await makeAsset(admin, { client_id: mine.client_id });
    expect((await portal.api.get(`/api/v1/assets/${own.asset_id}`)).statusCode).toBe(200);
    const list = (await portal.api.get('/api/v1/assets')).json();
    expect(list.data.map((a: { asset_id: string }) => a.asset_id)).toEqual([own.asset_id]);
    expect(list.pagination.total).toBe(1);
  });

  it('400 for a bad id, 401 without a key, 403 without asset:read', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    expectError(await admin.get('/api/v1/assets/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/assets/${asset.asset_id}`), 401, 'UNAUTHORIZED');
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await finance.api.get(`/api/v1/assets/${asset.asset_id}`), 403, 'FORBIDDEN');
  });
});

describe('PUT /api/v1/assets/{id}', () => {
  it('updates only what changed, emits asset.updated with changes, refreshes the index', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin, { warranty_end_date: daysFromToday(100), attributes: { os_type: 'linux' } });
    const res = await admin.put(`/api/v1/assets/${asset.asset_id}`, { name: 'Renamed', status: 'in_repair', warranty_end_date: daysFromToday(-1), location: 'Lab' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', status: 'in_repair', warranty_status: 'expired', location: 'Lab', attributes: { os_type: 'linux' } });
    const events = await eventsOf(t, tenant, asset.asset_id);
    expect(events.map((e) => e.event_type)).toEqual(['asset.created', 'asset.updated']);
    expect(events[1]!.payload.changes).toEqual({
      name: { previous: asset.name, new: 'Renamed' },
      status: { previous: 'active', new: 'in_repair' },
      warranty_end_date: { previous: asset.warranty_end_date, new: daysFromToday(-1) },
      warranty_status: { previous: 'active', new: 'expired' },
      location: { previous: null, new: 'Lab' },
    });
    expect((await searchDoc(t, tenant, asset.asset_id))!.title).toBe('Renamed');
    // A no-op changes nothing and emits nothing.
    const same = await admin.put(`/api/v1/assets/${asset.asset_id}`, { name: 'Renamed' });
    expect(same.json().data.updated_at).toBe(res.json().data.updated_at);
    expect(await eventsOf(t, tenant, asset.asset_id)).toHaveLength(2);
  });

  it('validates attributes against the new type when the type changes; attributes replace the whole set', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin, { attributes: { gpu_model: 'RTX' } });
    const moved = await admin.put(`/api/v1/assets/${asset.asset_id}`, { asset_type: 'printer' });
    expectError(moved, 400, 'VALIDATION_ERROR');
    expect(moved.json().error.message).toContain('gpu_model');
    const ok = await admin.put(`/api/v1/assets/${asset.asset_id}`, { asset_type: 'printer', attributes: { supports_color: true } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.attributes).toEqual({ supports_color: true });
    expect((await assetRow(t, tenant, asset.asset_id))!.attributes).toEqual({ supports_color: true });
    // The same attributes in another key order are no change (jsonb keeps its own key order).
    await admin.put(`/api/v1/assets/${asset.asset_id}`, { attributes: { supports_color: true, ip_address: '10.0.0.9', is_network_printer: true } });
    const before = (await eventsOf(t, tenant, asset.asset_id)).length;
    const same = await admin.put(`/api/v1/assets/${asset.asset_id}`, { attributes: { is_network_printer: true, ip_address: '10.0.0.9', supports_color: true } });
    expect(same.statusCode).toBe(200);
    expect(await eventsOf(t, tenant, asset.asset_id)).toHaveLength(before);
  });

  it('409 on a taken tag, 412 on a stale If-Match, 400 on an empty body, 404 elsewhere, 401, 403', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeAsset(admin);
    const b = await makeAsset(admin);
    expectError(await admin.put(`/api/v1/assets/${a.asset_id}`, { asset_tag: b.asset_tag.toUpperCase() }), 409, 'CONFLICT');
    const etag = (await admin.get(`/api/v1/assets/${a.asset_id}`)).headers.etag as string;
    expect((await admin.put(`/api/v1/assets/${a.asset_id}`, { name: 'One' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/assets/${a.asset_id}`, { name: 'Two' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(`/api/v1/assets/${a.asset_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/assets/${randomId()}`, { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put(`/api/v1/assets/${a.asset_id}`, { name: 'X' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(`/api/v1/assets/${a.asset_id}`, { name: 'X' }), 403, 'FORBIDDEN');
    expect((await assetRow(t, tenant, a.asset_id))!.name).toBe('One');
  });
});

describe('DELETE /api/v1/assets/{id}', () => {
  it('deletes the asset and its index entry, emits asset.deleted; 412/404/401/403', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(`/api/v1/assets/${asset.asset_id}`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete(`/api/v1/assets/${asset.asset_id}`), 401, 'UNAUTHORIZED');
    expectError(await admin.delete(`/api/v1/assets/${asset.asset_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const res = await admin.delete(`/api/v1/assets/${asset.asset_id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await assetRow(t, tenant, asset.asset_id)).toBeUndefined();
    expect(await searchDoc(t, tenant, asset.asset_id)).toBeUndefined();
    expect((await eventsOf(t, tenant, asset.asset_id)).map((e) => e.event_type)).toEqual(['asset.created', 'asset.deleted']);
    expectError(await admin.delete(`/api/v1/assets/${asset.asset_id}`), 404, 'NOT_FOUND');
  });

  it('a client with assets cannot be deleted (409 names the count)', async () => {
    const { admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const res = await admin.delete(`/api/v1/clients/${asset.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toMatchObject({ assets: 1 });
  });
});

describe('every asset read route', () => {
  it('answers 401 without a key, 403 without asset:read, 404 for unknown ids and 400 for malformed ids', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    const byId = ['', '/notes', '/documents', '/maintenance', '/history', '/relationships', '/tickets', '/summary'];
    const collections = ['/api/v1/assets', '/api/v1/asset-types', '/api/v1/assets/stats', '/api/v1/assets/export', '/api/v1/assets/search?query=x'];
    for (const url of [...byId.map((p) => `/api/v1/assets/${asset.asset_id}${p}`), ...collections]) {
      expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
      expectError(await finance.api.get(url), 403, 'FORBIDDEN');
    }
    for (const p of byId) {
      expectError(await admin.get(`/api/v1/assets/${randomId()}${p}`), 404, 'NOT_FOUND');
      expectError(await admin.get(`/api/v1/assets/not-an-id${p}`), 400, 'VALIDATION_ERROR');
      expect((await admin.get(`/api/v1/assets/${asset.asset_id}${p}`)).statusCode, p).toBe(200);
    }
    for (const url of ['/api/v1/assets?sort=colour', '/api/v1/assets?limit=101', '/api/v1/assets?unknown=1', '/api/v1/asset-types?x=1']) {
      expectError(await admin.get(url), 400, 'VALIDATION_ERROR');
    }
  });
});
