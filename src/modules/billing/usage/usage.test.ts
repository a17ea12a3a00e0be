import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId, tombstone } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function items(api: Api): Promise<{ storage: string; support: string; setup: string }> {
  const type = (await api.get('/api/v1/service-types?search=Cloud')).json().data[0].service_type_id;
  const make = async (body: Record<string, unknown>) => (await api.post('/api/v1/services', { custom_service_type_id: type, ...body })).json().data.service_id as string;
  return {
    storage: await make({ service_name: 'Backup storage', billing_method: 'usage', unit_of_measure: 'GB', default_rate: 10 }),
    support: await make({ service_name: 'Support', billing_method: 'hourly', unit_of_measure: 'hour', default_rate: 12000 }),
    setup: await make({ service_name: 'Setup', billing_method: 'fixed', unit_of_measure: 'each', default_rate: 50000 }),
  };
}

describe('usage records', () => {
  it("records a client's usage of an item billed by usage, to four decimals; lists by client, service and dates; corrects and deletes", async () => {
    const { tenant, admin } = await makeTenant(t);
    const { storage, support, setup } = await items(admin);
    const client = await makeClient(admin, { client_name: 'Acme' });
    const other = await makeClient(admin, { client_name: 'Beta' });
    const res = await admin.post('/api/v1/usage-records', { client_id: client.client_id, service_id: storage, quantity: 12.3456, usage_date: '2026-10-31', description: 'October backups' });
    expect(res.statusCode, res.body).toBe(201);
    const rec = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/usage-records/${rec.usage_id}`);
    expect(rec).toMatchObject({ client_name: 'Acme', service_name: 'Backup storage', unit_of_measure: 'GB', quantity: 12.3456, usage_date: '2026-10-31', description: 'October backups' });
    await admin.post('/api/v1/usage-records', { client_id: client.client_id, service_id: storage, quantity: 1, usage_date: '2026-11-15' });
    await admin.post('/api/v1/usage-records', { client_id: other.client_id, service_id: storage, quantity: 2, usage_date: '2026-11-01' });
    const qty = async (q: string) => (await admin.get(`/api/v1/usage-records${q}`)).json().data.map((r: { quantity: number }) => r.quantity);
    expect(await qty('')).toEqual([1, 2, 12.3456]);
    expect(await qty(`?client_id=${client.client_id}`)).toEqual([1, 12.3456]);
    expect(await qty('?from=2026-11-01&to=2026-11-30&sort=quantity&order=asc')).toEqual([1, 2]);
    expect(await qty(`?service_id=${support}`)).toEqual([]);

    const fixedItem = await admin.post('/api/v1/usage-records', { client_id: client.client_id, service_id: setup, quantity: 1 });
    expectError(fixedItem, 422, 'UNPROCESSABLE');
    expect(fixedItem.json().error.message).toBe("'Setup' is billed at a fixed rate; usage is recorded for items billed by usage, and hours for hourly services");
    // Hours against an hourly service are recorded too (bucket lines bill from them).
    const hours = await admin.post('/api/v1/usage-records', { client_id: other.client_id, service_id: support, quantity: 1.25, usage_date: '2026-11-02' });
    expect(hours.statusCode, hours.body).toBe(201);
    expect(hours.json().data).toMatchObject({ unit_of_measure: 'hour', quantity: 1.25 });
    expect((await admin.delete(`/api/v1/usage-records/${hours.json().data.usage_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`/api/v1/services/${storage}`), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/clients/${other.client_id}`), 409, 'CONFLICT');
    const fixed = await admin.put(`/api/v1/usage-records/${rec.usage_id}`, { quantity: 12.5 });
    expect(fixed.json().data.quantity).toBe(12.5);
    expect((await admin.delete(`/api/v1/usage-records/${rec.usage_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/v1/usage-records/${rec.usage_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, rec.usage_id)).map((e) => e.event_type)).toEqual(['usage_record.created', 'usage_record.updated', 'usage_record.deleted']);
    await admin.put(`/api/v1/services/${storage}`, { is_active: false });
    expectError(await admin.post('/api/v1/usage-records', { client_id: client.client_id, service_id: storage, quantity: 1 }), 422, 'UNPROCESSABLE');
  });

  it('400 naming the field, 401, 403 by role, 404 across tenants, 409 for a merged client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const { storage } = await items(admin);
    const client = await makeClient(admin);
    const base = { client_id: client.client_id, service_id: storage, quantity: 1 };
    const otherTenant = await makeTenant(t);
    const foreignClient = await makeClient(otherTenant.admin);
    for (const [body, field] of [
      [{ ...base, quantity: 0 }, 'body.quantity'],
      [{ ...base, quantity: -1 }, 'body.quantity'],
      [{ ...base, quantity: 1.00001 }, 'body.quantity'],
      [{ ...base, client_id: foreignClient.client_id }, 'body.client_id'],
      [{ ...base, service_id: randomId() }, 'body.service_id'],
      [{ ...base, usage_date: '2026-02-30' }, 'body.usage_date'],
      [{ ...base, invoice_id: randomId() }, 'body.invoice_id'],
    ] as const) {
      const r = await admin.post('/api/v1/usage-records', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    const rec = (await admin.post('/api/v1/usage-records', base)).json().data;
    expect(rec.usage_date).toBe(new Date().toISOString().slice(0, 10));
    expectError(await admin.put(`/api/v1/usage-records/${rec.usage_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/usage-records/${rec.usage_id}`, { client_id: client.client_id }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/usage-records?from=2026-12-01&to=2026-11-01'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/usage-records/nope'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/usage-records'), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/usage-records'), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.get(`/api/v1/usage-records/${rec.usage_id}`)).statusCode).toBe(200);
    expectError(await manager.post('/api/v1/usage-records', base), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expect((await finance.post('/api/v1/usage-records', base)).statusCode).toBe(201);
    for (const r of [
      await otherTenant.admin.get(`/api/v1/usage-records/${rec.usage_id}`),
      await otherTenant.admin.put(`/api/v1/usage-records/${rec.usage_id}`, { quantity: 2 }),
      await otherTenant.admin.delete(`/api/v1/usage-records/${rec.usage_id}`),
    ]) expectError(r, 404, 'NOT_FOUND');
    expect((await otherTenant.admin.get('/api/v1/usage-records')).json().pagination.total).toBe(0);
    const merged = await makeClient(admin);
    await tombstone(t, tenant, merged.client_id, client.client_id);
    expectError(await admin.post('/api/v1/usage-records', { ...base, client_id: merged.client_id }), 409, 'CONFLICT');
  });
});
