import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('billing settings', () => {
  it('the default currency is USD until set; new items and lines then default to it, existing ones keep theirs', async () => {
    const { tenant, admin } = await makeTenant(t);
    expect((await admin.get('/api/v1/billing-settings')).json().data).toEqual({ default_currency_code: 'USD' });
    const line = { contract_line_name: 'L', contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 1 } };
    const before = (await admin.post('/api/v1/contract-lines', line)).json().data;
    const put = await admin.put('/api/v1/billing-settings', { default_currency_code: 'chf' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toEqual({ default_currency_code: 'CHF' });
    expect((await admin.post('/api/v1/contract-lines', line)).json().data.currency_code).toBe('CHF');
    expect((await admin.get(`/api/v1/contract-lines/${before.contract_line_id}`)).json().data.currency_code).toBe('USD');
    const type = (await admin.get('/api/v1/service-types')).json().data[0].service_type_id;
    expect((await admin.post('/api/v1/products', { service_name: 'P', custom_service_type_id: type, unit_of_measure: 'each' })).json().data.currency_code).toBe('CHF');
    expect((await eventsOf(t, tenant, tenant)).map((e) => [e.event_type, e.payload.default_currency_code])).toEqual([['billing_settings.updated', 'CHF']]);
    const other = await makeTenant(t);
    expect((await other.admin.get('/api/v1/billing-settings')).json().data.default_currency_code).toBe('USD');
  });

  it('400 for an unknown currency, 401 without a key, 403 without billing permissions', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const body of [{ default_currency_code: 'XXY' }, { default_currency_code: 'EU' }, {}, { default_currency_code: 'EUR', extra: 1 }]) {
      const r = await admin.put('/api/v1/billing-settings', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message).toContain('body.');
    }
    expectError(await anonymous(t).get('/api/v1/billing-settings'), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/billing-settings'), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.get('/api/v1/billing-settings')).statusCode).toBe(200);
    expectError(await manager.put('/api/v1/billing-settings', { default_currency_code: 'EUR' }), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    expect((await finance.put('/api/v1/billing-settings', { default_currency_code: 'EUR' })).statusCode).toBe(200);
  });
});
