import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId, tombstone } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function rate(api: Api, body: Record<string, unknown>): Promise<{ tax_rate_id: string }> {
  const res = await api.post('/api/v1/tax-rates', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('tax rates', () => {
  it('keeps percentages exact to three decimals; names are unique; a client default cannot be deleted or deactivated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const res = await finance.post('/api/v1/tax-rates', { name: 'NYC sales tax', region: 'New York City', percentage: 8.875 });
    expect(res.statusCode, res.body).toBe(201);
    const nyc = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/tax-rates/${nyc.tax_rate_id}`);
    expect(nyc).toMatchObject({ name: 'NYC sales tax', region: 'New York City', percentage: 8.875, is_active: true, client_count: 0 });
    await rate(finance, { name: 'UK VAT', region: 'GB', percentage: 20 });
    await rate(finance, { name: 'Zero', percentage: 0, is_active: false });
    expectError(await finance.post('/api/v1/tax-rates', { name: 'uk vat', percentage: 5 }), 409, 'CONFLICT');
    const names = async (q: string) => (await finance.get(`/api/v1/tax-rates${q}`)).json().data.map((r: { name: string }) => r.name);
    expect(await names('')).toEqual(['NYC sales tax', 'UK VAT', 'Zero']);
    expect(await names('?sort=percentage&order=desc')).toEqual(['UK VAT', 'NYC sales tax', 'Zero']);
    expect(await names('?is_active=false')).toEqual(['Zero']);
    expect(await names('?region=gb')).toEqual(['UK VAT']);
    expect(await names('?search=york')).toEqual(['NYC sales tax']);

    const client = await makeClient(admin);
    expect((await finance.put(`/api/v1/clients/${client.client_id}/tax-settings`, { default_tax_rate_id: nyc.tax_rate_id })).statusCode).toBe(200);
    expect((await finance.get(`/api/v1/tax-rates/${nyc.tax_rate_id}`)).json().data.client_count).toBe(1);
    expectError(await finance.delete(`/api/v1/tax-rates/${nyc.tax_rate_id}`), 409, 'CONFLICT');
    expectError(await finance.put(`/api/v1/tax-rates/${nyc.tax_rate_id}`, { is_active: false }), 422, 'UNPROCESSABLE');
    expect((await finance.put(`/api/v1/tax-rates/${nyc.tax_rate_id}`, { percentage: 8.5 })).json().data.percentage).toBe(8.5);
    await finance.put(`/api/v1/clients/${client.client_id}/tax-settings`, { default_tax_rate_id: null });
    expect((await finance.delete(`/api/v1/tax-rates/${nyc.tax_rate_id}`)).statusCode).toBe(204);
    expectError(await finance.get(`/api/v1/tax-rates/${nyc.tax_rate_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, nyc.tax_rate_id)).map((e) => e.event_type)).toEqual(['tax_rate.created', 'tax_rate.updated', 'tax_rate.deleted']);
    expect((await eventsOf(t, tenant, client.client_id)).filter((e) => e.event_type === 'client_tax_settings.updated')).toHaveLength(2);
  });

  it('400 naming the field, 401, 403 by role, 404 across tenants', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const [body, field] of [
      [{ name: 'X', percentage: 8.8755 }, 'body.percentage'],
      [{ name: 'X', percentage: -1 }, 'body.percentage'],
      [{ name: 'X', percentage: 100.5 }, 'body.percentage'],
      [{ name: 'X', percentage: '8' }, 'body.percentage'],
      [{ name: '  ', percentage: 1 }, 'body.name'],
      [{ percentage: 1 }, 'body.name'],
      [{ name: 'X', percentage: 1, rate: 2 }, 'body.rate'],
    ] as const) {
      const r = await admin.post('/api/v1/tax-rates', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    const vat = await rate(admin, { name: 'VAT', percentage: 20 });
    expectError(await admin.put(`/api/v1/tax-rates/${vat.tax_rate_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/tax-rates?sort=rate'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/tax-rates/nope'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`/api/v1/tax-rates/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get('/api/v1/tax-rates'), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post('/api/v1/tax/calculate', {}), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/tax-rates'), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.get(`/api/v1/tax-rates/${vat.tax_rate_id}`)).statusCode).toBe(200);
    expectError(await manager.post('/api/v1/tax-rates', { name: 'M', percentage: 1 }), 403, 'FORBIDDEN');
    expectError(await manager.delete(`/api/v1/tax-rates/${vat.tax_rate_id}`), 403, 'FORBIDDEN');
    const client = await makeClient(admin);
    expectError(await manager.put(`/api/v1/clients/${client.client_id}/tax-settings`, { is_tax_exempt: true }), 403, 'FORBIDDEN');
    const other = await makeTenant(t);
    for (const r of [
      await other.admin.get(`/api/v1/tax-rates/${vat.tax_rate_id}`),
      await other.admin.put(`/api/v1/tax-rates/${vat.tax_rate_id}`, { name: 'x' }),
      await other.admin.delete(`/api/v1/tax-rates/${vat.tax_rate_id}`),
      await other.admin.get(`/api/v1/clients/${client.client_id}/tax-settings`),
      await other.admin.put(`/api/v1/clients/${client.client_id}/tax-settings`, { is_tax_exempt: true }),
    ]) expectError(r, 404, 'NOT_FOUND');
    expect((await other.admin.get('/api/v1/tax-rates')).json().pagination.total).toBe(0);
  });
});

describe('client tax settings and the calculation', () => {
  it("prices lines half to even per line, applies the client's default rate and exemption, totals = sums of lines", async () => {
    const { tenant, admin } = await makeTenant(t);
    const nyc = await rate(admin, { name: 'NYC', percentage: 8.875 });
    const vat = await rate(admin, { name: 'VAT', percentage: 25 });
    const off = await rate(admin, { name: 'Old', percentage: 7, is_active: false });
    const client = await makeClient(admin);
    const path = `/api/v1/clients/${client.client_id}/tax-settings`;
    expect((await admin.get(path)).json().data).toEqual({ client_id: client.client_id, is_tax_exempt: false, tax_exemption_certificate: null, default_tax_rate_id: null, default_tax_rate: null, updated_at: null });
    const put = await admin.put(path, { default_tax_rate_id: nyc.tax_rate_id });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ is_tax_exempt: false, default_tax_rate: { tax_rate_id: nyc.tax_rate_id, name: 'NYC', percentage: 8.875 } });
    expectError(await admin.put(path, { default_tax_rate_id: off.tax_rate_id }), 422, 'UNPROCESSABLE');
    const foreign = await admin.put(path, { default_tax_rate_id: randomId() });
    expectError(foreign, 400, 'VALIDATION_ERROR');
    expect(foreign.json().error.message).toContain('body.default_tax_rate_id');

    const body = {
      client_id: client.client_id, currency_code: 'usd',
      lines: [
        { description: 'Support', quantity: 1.5, unit_price_cents: 333 }, // 4.995 → 500 (half-even); tax 500 × 8.875 % = 44.375 → 44
        { quantity: 1, unit_price_cents: 1000, tax_rate_id: vat.tax_rate_id }, // 1000; tax 250
        { quantity: 3, unit_price_cents: 10, tax_rate_id: vat.tax_rate_id }, // 30; tax 7.5 → 8 (even)
        { quantity: 2, unit_price_cents: 999, tax_rate_id: null }, // 1998; untaxed
      ],
    };
    const calc = await admin.post('/api/v1/tax/calculate', body);
    expect(calc.statusCode, calc.body).toBe(200);
    const data = calc.json().data;
    expect(data.lines.map((l: { amount_cents: number; tax_cents: number; total_cents: number; tax_percentage: number }) => [l.amount_cents, l.tax_percentage, l.tax_cents, l.total_cents])).toEqual([
      [500, 8.875, 44, 544], [1000, 25, 250, 1250], [30, 25, 8, 38], [1998, 0, 0, 1998],
    ]);
    expect(data).toMatchObject({ currency_code: 'USD', is_tax_exempt: false, subtotal_cents: 3528, tax_cents: 302, total_cents: 3830 });
    expect(data.lines[0]).toMatchObject({ description: 'Support', tax_rate_id: nyc.tax_rate_id });

    await admin.put(path, { is_tax_exempt: true, tax_exemption_certificate: 'EX-123' });
    expect((await admin.get(path)).json().data).toMatchObject({ is_tax_exempt: true, tax_exemption_certificate: 'EX-123', default_tax_rate_id: nyc.tax_rate_id });
    const exempt = (await admin.post('/api/v1/tax/calculate', body)).json().data;
    expect(exempt).toMatchObject({ is_tax_exempt: true, subtotal_cents: 3528, tax_cents: 0, total_cents: 3528 });
    expect((await admin.post('/api/v1/tax/calculate', { currency_code: 'EUR', lines: [{ quantity: 1, unit_price_cents: 100 }] })).json().data).toMatchObject({ tax_cents: 0, total_cents: 100 });

    for (const [bad, field] of [
      [{ ...body, currency_code: 'ABC' }, 'body.currency_code'],
      [{ ...body, client_id: randomId() }, 'body.client_id'],
      [{ ...body, lines: [] }, 'body.lines'],
      [{ ...body, lines: [{ quantity: 1.00001, unit_price_cents: 1 }] }, 'body.lines.0.quantity'],
      [{ ...body, lines: [{ quantity: 0, unit_price_cents: 1 }] }, 'body.lines.0.quantity'],
      [{ ...body, lines: [{ quantity: 1, unit_price_cents: -1 }] }, 'body.lines.0.unit_price_cents'],
      [{ ...body, lines: [{ quantity: 1, unit_price_cents: 1, tax_rate_id: randomId() }] }, 'body.lines.0.tax_rate_id'],
    ] as const) {
      const r = await admin.post('/api/v1/tax/calculate', bad);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(bad)).toContain(field);
    }
    expectError(await admin.post('/api/v1/tax/calculate', { currency_code: 'USD', lines: [{ quantity: 1, unit_price_cents: 1, tax_rate_id: off.tax_rate_id }] }), 422, 'UNPROCESSABLE');
    const merged = await makeClient(admin);
    await tombstone(t, tenant, merged.client_id, client.client_id);
    expectError(await admin.put(`/api/v1/clients/${merged.client_id}/tax-settings`, { is_tax_exempt: true }), 409, 'CONFLICT');
  });
});
