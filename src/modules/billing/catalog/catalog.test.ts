import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function typeId(api: Api, name = 'Managed Services'): Promise<string> {
  const res = await api.get(`/api/v1/service-types?search=${encodeURIComponent(name)}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data[0].service_type_id;
}

describe('service types', () => {
  it('every tenant starts with the built-ins; creates, renames, deactivates and deletes its own; names are unique (409)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const list = await admin.get('/api/v1/service-types');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: { name: string }) => x.name)).toEqual(['Cloud Services', 'Hardware', 'Managed Services', 'Professional Services', 'Software Licenses']);
    expect(list.json().pagination).toMatchObject({ total: 5, page: 1 });
    const created = await admin.post('/api/v1/service-types', { name: 'Backup', description: 'Offsite' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.service_type_id;
    expect(created.headers.location).toBe(`/api/v1/service-types/${id}`);
    expect(created.json().data).toMatchObject({ name: 'Backup', description: 'Offsite', is_builtin: false, is_active: true, item_count: 0 });
    expectError(await admin.post('/api/v1/service-types', { name: 'backup' }), 409, 'CONFLICT');
    const renamed = await admin.put(`/api/v1/service-types/${id}`, { name: 'Backups', is_active: false });
    expect(renamed.json().data).toMatchObject({ name: 'Backups', is_active: false });
    expect((await admin.get('/api/v1/service-types?is_active=false')).json().data.map((x: { name: string }) => x.name)).toEqual(['Backups']);
    expect((await admin.delete(`/api/v1/service-types/${id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/v1/service-types/${id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, id)).map((e) => e.event_type)).toEqual(['service_type.created', 'service_type.updated', 'service_type.deleted']);
    const builtin = await typeId(admin, 'Hardware');
    expectError(await admin.delete(`/api/v1/service-types/${builtin}`), 422, 'UNPROCESSABLE');
  });

  it('400 bad bodies and queries, 401, 403, 404 unknown and foreign ids', async () => {
    const { tenant, admin } = await makeTenant(t);
    expectError(await admin.post('/api/v1/service-types', { name: '' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/service-types', { name: '   ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/service-types', { name: 'X', extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/service-types/${randomId()}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/service-types?sort=nope'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/service-types/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`/api/v1/service-types/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get('/api/v1/service-types'), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get('/api/v1/service-types')).statusCode).toBe(200);
    expectError(await viewer.api.post('/api/v1/service-types', { name: 'X' }), 403, 'FORBIDDEN');
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expect((await finance.api.post('/api/v1/service-types', { name: 'By finance' })).statusCode).toBe(201);
    const other = await makeTenant(t);
    expectError(await other.admin.get(`/api/v1/service-types/${await typeId(admin)}`), 404, 'NOT_FOUND');
  });
});

describe('services and products', () => {
  it('creates a service with cents, per-currency prices and the tenant currency; updates replace prices wholesale; emits and indexes', async () => {
    const { tenant, admin } = await makeTenant(t);
    const type = await typeId(admin);
    const res = await admin.post('/api/v1/services', {
      service_name: 'Managed Workstation', custom_service_type_id: type, billing_method: 'fixed', unit_of_measure: 'device',
      default_rate: 4999, prices: [{ currency_code: 'eur', rate: 4599 }, { currency_code: 'GBP', rate: 3999 }], description: 'Patching and monitoring',
    });
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/services/${item.service_id}`);
    expect(item).toMatchObject({
      item_kind: 'service', billing_method: 'fixed', default_rate: 4999, currency_code: 'USD', service_type_name: 'Managed Services',
      prices: [{ currency_code: 'EUR', rate: 4599 }, { currency_code: 'GBP', rate: 3999 }], is_active: true, sku: null, cost: null,
    });
    const updated = await admin.put(`/api/v1/services/${item.service_id}`, { prices: [{ currency_code: 'CAD', rate: 6500 }], default_rate: 5100 });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({ default_rate: 5100, prices: [{ currency_code: 'CAD', rate: 6500 }] });
    expect((await admin.get(`/api/v1/services/${item.service_id}`)).json().data.prices).toEqual([{ currency_code: 'CAD', rate: 6500 }]);
    expect((await eventsOf(t, tenant, item.service_id)).map((e) => [e.event_type, e.payload.changed_fields ?? null])).toEqual([
      ['service.created', null],
      ['service.updated', ['default_rate', 'prices']],
    ]);
    const found = await admin.get('/api/v1/search?query=workstation');
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().data.results.map((r: { type: string; id: string }) => `${r.type}:${r.id}`)).toContain(`service_catalog:${item.service_id}`);
    expect((await admin.get(`/api/v1/service-types/${type}`)).json().data.item_count).toBe(1);
    expectError(await admin.delete(`/api/v1/service-types/${type}`), 422, 'UNPROCESSABLE');
    expect((await admin.delete(`/api/v1/services/${item.service_id}`)).statusCode).toBe(204);
    expect((await admin.get('/api/v1/search?query=workstation')).json().data.results).toEqual([]);
    expectError(await admin.get(`/api/v1/services/${item.service_id}`), 404, 'NOT_FOUND');
  });

  it('products always bill by usage; SKUs are unique per tenant; a product id is a 404 on /services and back', async () => {
    const { admin } = await makeTenant(t);
    const type = await typeId(admin, 'Hardware');
    const res = await admin.post('/api/v1/products', {
      service_name: 'Laptop 14"', custom_service_type_id: type, unit_of_measure: 'each', default_rate: 129900, currency_code: 'eur',
      sku: 'LT-14', cost: 99000, vendor: 'Acme', is_license: false,
    });
    expect(res.statusCode, res.body).toBe(201);
    const product = res.json().data;
    expect(product).toMatchObject({ item_kind: 'product', billing_method: 'usage', currency_code: 'EUR', cost: 99000, cost_currency: 'EUR', sku: 'LT-14' });
    expect(res.headers.location).toBe(`/api/v1/products/${product.service_id}`);
    expectError(await admin.post('/api/v1/products', { service_name: 'Other', custom_service_type_id: type, unit_of_measure: 'each', sku: 'lt-14' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/products', { service_name: 'Other', custom_service_type_id: type, unit_of_measure: 'each', billing_method: 'fixed' }), 400, 'VALIDATION_ERROR');
    const svc = (await admin.post('/api/v1/services', { service_name: 'Helpdesk', custom_service_type_id: type, billing_method: 'hourly', unit_of_measure: 'hour', default_rate: 15000 })).json().data;
    expectError(await admin.get(`/api/v1/services/${product.service_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/products/${svc.service_id}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/v1/products/${svc.service_id}`, { default_rate: 1 }), 404, 'NOT_FOUND');
    const names = async (path: string) => (await admin.get(path)).json().data.map((x: { service_name: string }) => x.service_name);
    expect(await names('/api/v1/products')).toEqual(['Laptop 14"']);
    expect(await names('/api/v1/services')).toEqual(['Helpdesk']);
    expect(await names('/api/v1/services?item_kind=any')).toEqual(['Helpdesk', 'Laptop 14"']);
    expect(await names('/api/v1/services?item_kind=any&sort=default_rate&order=desc')).toEqual(['Laptop 14"', 'Helpdesk']);
    expect(await names('/api/v1/services?item_kind=any&billing_method=hourly')).toEqual(['Helpdesk']);
    expect(await names('/api/v1/services?item_kind=product&search=lt-1')).toEqual(['Laptop 14"']);
    expect(await names(`/api/v1/products?custom_service_type_id=${type}&is_active=true&is_license=false`)).toEqual(['Laptop 14"']);
    expect(await names('/api/v1/products?is_active=false')).toEqual([]);
    const off = await admin.put(`/api/v1/products/${product.service_id}`, { is_active: false, sku: null });
    expect(off.json().data).toMatchObject({ is_active: false, sku: null, billing_method: 'usage' });
  });

  it('bad input is a 400 naming the field (foreign type, negative rate, unknown currency, duplicate price), never a 500; 401, 403, tenant isolation', async () => {
    const { tenant, admin } = await makeTenant(t);
    const type = await typeId(admin);
    const base = { service_name: 'S', custom_service_type_id: type, billing_method: 'fixed', unit_of_measure: 'month' };
    const other = await makeTenant(t);
    const foreign = await admin.post('/api/v1/services', { ...base, custom_service_type_id: await typeId(other.admin) });
    expectError(foreign, 400, 'VALIDATION_ERROR');
    expect(foreign.json().error.message).toContain('custom_service_type_id');
    for (const [body, field] of [
      [{ ...base, default_rate: -1 }, 'default_rate'],
      [{ ...base, default_rate: 12.5 }, 'default_rate'],
      [{ ...base, default_rate: '100' }, 'default_rate'],
      [{ ...base, currency_code: 'XYZ' }, 'currency_code'],
      [{ ...base, currency_code: 'US' }, 'currency_code'],
      [{ ...base, prices: [{ currency_code: 'EUR', rate: 1 }, { currency_code: 'eur', rate: 2 }] }, 'prices.1.currency_code'],
      [{ ...base, prices: [{ currency_code: 'USD', rate: 1 }] }, 'prices.0.currency_code'],
      [{ ...base, billing_method: 'monthly' }, 'billing_method'],
      [{ ...base, unit_of_measure: undefined }, 'unit_of_measure'],
      [{ ...base, custom_service_type_id: 'nope' }, 'custom_service_type_id'],
      [{ ...base, cost_currency: 'ZZZ', cost: 1 }, 'cost_currency'],
    ] as const) {
      const r = await admin.post('/api/v1/services', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message).toContain(field);
    }
    const inactive = (await admin.post('/api/v1/service-types', { name: 'Old', is_active: false })).json().data.service_type_id;
    expectError(await admin.post('/api/v1/services', { ...base, custom_service_type_id: inactive }), 422, 'UNPROCESSABLE');
    const created = (await admin.post('/api/v1/services', base)).json().data;
    expect(created.currency_code).toBe('USD');
    expectError(await admin.put(`/api/v1/services/${created.service_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/services?item_kind=every'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/products?limit=1000'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/services'), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expect((await tech.api.get(`/api/v1/services/${created.service_id}`)).statusCode).toBe(200);
    expectError(await tech.api.post('/api/v1/services', base), 403, 'FORBIDDEN');
    expectError(await tech.api.delete(`/api/v1/services/${created.service_id}`), 403, 'FORBIDDEN');
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expect((await finance.api.put(`/api/v1/services/${created.service_id}`, { default_rate: 10 })).statusCode).toBe(200);
    expectError(await other.admin.get(`/api/v1/services/${created.service_id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.put(`/api/v1/services/${created.service_id}`, { default_rate: 1 }), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`/api/v1/services/${created.service_id}`), 404, 'NOT_FOUND');
    expect((await other.admin.get('/api/v1/services')).json().pagination.total).toBe(0);
  });
});
