import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError } from '../../../../test/client-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const rackType = {
  slug: 'rack_ups',
  type_name: 'Rack UPS',
  field_schema: [
    { key: 'capacity_va', label: 'Capacity (VA)', type: 'integer', required: true },
    { key: 'battery_date', label: 'Battery installed', type: 'date', required: false },
    { key: 'form', label: 'Form factor', type: 'enum', required: false, enum_values: ['tower', 'rack'] },
    { key: 'note', label: 'Note', type: 'string', required: false, max_length: 5 },
  ],
};

describe('asset types', () => {
  it('every tenant starts with the five built-in types', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get('/api/v1/asset-types');
    expect(res.statusCode).toBe(200);
    const types = res.json().data;
    expect(types.map((x: { slug: string }) => x.slug)).toEqual(['mobile_device', 'network_device', 'printer', 'server', 'workstation']);
    expect(types.every((x: { is_builtin: boolean; asset_count: number }) => x.is_builtin && x.asset_count === 0)).toBe(true);
  });

  it('creates a tenant type whose schema validates asset attributes (required, types, enum, max_length, unknown keys)', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/asset-types', rackType);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.location).toBe('/api/v1/asset-types/rack_ups');
    expect(res.json().data).toMatchObject({ slug: 'rack_ups', is_builtin: false, asset_count: 0, field_schema: rackType.field_schema });
    const base = { asset_type: 'rack_ups' };
    const missing = await admin.post('/api/v1/assets', { ...(await baseAsset(admin)), ...base });
    expectError(missing, 400, 'VALIDATION_ERROR');
    expect(missing.json().error.message).toContain('capacity_va');
    for (const [attrs, name] of [
      [{ capacity_va: 1500, battery_date: '2026-02-31' }, 'battery_date'],
      [{ capacity_va: 1500, form: 'blade' }, 'form'],
      [{ capacity_va: 1500, note: 'too long' }, 'note'],
      [{ capacity_va: '1500' }, 'capacity_va'],
      [{ capacity_va: 1500, other: 1 }, 'other'],
    ] as const) {
      const r = await admin.post('/api/v1/assets', { ...(await baseAsset(admin)), ...base, attributes: attrs });
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message).toContain(name);
    }
    const ok = await makeAsset(admin, { ...base, attributes: { capacity_va: 1500, battery_date: '2026-01-31', form: 'rack', note: null } });
    expect(ok.attributes).toEqual({ capacity_va: 1500, battery_date: '2026-01-31', form: 'rack' });
    expect((await admin.get('/api/v1/asset-types/rack_ups')).json().data.asset_count).toBe(1);
  });

  it('rejects bad schemas (400) and taken slugs (409); 401 and 403', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const field_schema of [
      [{ key: 'a', label: 'A', type: 'enum', required: false }],
      [{ key: 'a', label: 'A', type: 'string', required: false, enum_values: ['x'] }],
      [{ key: 'a', label: 'A', type: 'integer', required: false, max_length: 3 }],
      [{ key: 'a', label: 'A', type: 'string', required: false }, { key: 'a', label: 'B', type: 'string', required: false }],
      [{ key: 'Bad Key', label: 'A', type: 'string', required: false }],
      [{ key: 'a', label: 'A', type: 'blob', required: false }],
    ]) {
      expectError(await admin.post('/api/v1/asset-types', { slug: 'x_type', type_name: 'X', field_schema }), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.post('/api/v1/asset-types', { slug: 'Bad-Slug', type_name: 'X' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/asset-types', { slug: 'server', type_name: 'Mine' }), 409, 'CONFLICT');
    expectError(await anonymous(t).post('/api/v1/asset-types', { slug: 'x_type', type_name: 'X' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post('/api/v1/asset-types', { slug: 'x_type', type_name: 'X' }), 403, 'FORBIDDEN');
    expect((await viewer.api.get('/api/v1/asset-types/server')).statusCode).toBe(200);
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await finance.api.get('/api/v1/asset-types'), 403, 'FORBIDDEN');
    expectError(await admin.get('/api/v1/asset-types/no_such_type'), 404, 'NOT_FOUND');
  });

  it('updates names of built-ins but not their schema (422); a schema that would break existing assets is a 409', async () => {
    const { tenant, admin } = await makeTenant(t);
    const renamed = await admin.put('/api/v1/asset-types/server', { type_name: 'Servers', description: 'Ours' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({ type_name: 'Servers', description: 'Ours', is_builtin: true });
    expectError(await admin.put('/api/v1/asset-types/server', { field_schema: [] }), 422, 'UNPROCESSABLE');
    const own = (await admin.get('/api/v1/asset-types/server')).json().data.field_schema;
    expect((await admin.put('/api/v1/asset-types/server', { field_schema: own })).statusCode).toBe(200);
    await admin.post('/api/v1/asset-types', rackType);
    const asset = await makeAsset(admin, { asset_type: 'rack_ups', attributes: { capacity_va: 900, note: 'abc' } });
    const breaking = await admin.put('/api/v1/asset-types/rack_ups', { field_schema: [{ key: 'capacity_va', label: 'VA', type: 'integer', required: true }] });
    expectError(breaking, 409, 'CONFLICT');
    expect(breaking.json().error.details).toMatchObject({ invalid_asset_count: 1, assets: [{ asset_id: asset.asset_id }] });
    const etag = (await admin.get('/api/v1/asset-types/rack_ups')).headers.etag as string;
    const fine = await admin.put('/api/v1/asset-types/rack_ups', { field_schema: [...rackType.field_schema, { key: 'extra', label: 'Extra', type: 'boolean', required: false }] }, { 'if-match': etag });
    expect(fine.statusCode, fine.body).toBe(200);
    expectError(await admin.put('/api/v1/asset-types/rack_ups', { type_name: 'Again' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put('/api/v1/asset-types/rack_ups', {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/asset-types/nope', { type_name: 'X' }), 404, 'NOT_FOUND');
    const tech = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await tech.api.put('/api/v1/asset-types/rack_ups', { type_name: 'X' }), 403, 'FORBIDDEN');
  });

  it('deletes unused tenant types; built-ins (422) and types in use (409 naming the count) stay', async () => {
    const { tenant, admin } = await makeTenant(t);
    expectError(await admin.delete('/api/v1/asset-types/printer'), 422, 'UNPROCESSABLE');
    await admin.post('/api/v1/asset-types', { slug: 'kiosk', type_name: 'Kiosk' });
    const asset = await makeAsset(admin, { asset_type: 'kiosk' });
    const inUse = await admin.delete('/api/v1/asset-types/kiosk');
    expectError(inUse, 409, 'CONFLICT');
    expect(inUse.json().error.details).toEqual({ asset_count: 1 });
    expect(inUse.json().error.message).toContain('1 asset');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete('/api/v1/asset-types/kiosk'), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete('/api/v1/asset-types/kiosk'), 401, 'UNAUTHORIZED');
    expect((await admin.delete(`/api/v1/assets/${asset.asset_id}`)).statusCode).toBe(204);
    expect((await admin.delete('/api/v1/asset-types/kiosk')).statusCode).toBe(204);
    expectError(await admin.get('/api/v1/asset-types/kiosk'), 404, 'NOT_FOUND');
    expectError(await admin.delete('/api/v1/asset-types/kiosk'), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    await admin.post('/api/v1/asset-types', { slug: 'mine_only', type_name: 'Mine' });
    expectError(await other.admin.get('/api/v1/asset-types/mine_only'), 404, 'NOT_FOUND');
  });
});

async function baseAsset(admin: Parameters<typeof makeAsset>[0]) {
  const client = await admin.post('/api/v1/clients', { client_name: `C ${Math.random()}`, billing_cycle: 'monthly' });
  return { client_id: client.json().data.client_id, asset_tag: `T-${Math.random()}`, name: 'UPS', status: 'active' };
}
