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
    const defaults = {
      default_currency_code: 'USD',
      invoice_number_prefix: 'INV-',
      next_invoice_number: 1,
      credit_note_number_prefix: 'CN-',
      next_credit_note_number: 1,
      quote_number_prefix: 'Q-',
      next_quote_number: 1,
      default_payment_terms_days: 30,
    };
    expect((await admin.get('/api/v1/billing-settings')).json().data).toEqual(defaults);
    const line = { contract_line_name: 'L', contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 1 } };
    const before = (await admin.post('/api/v1/contract-lines', line)).json().data;
    const put = await admin.put('/api/v1/billing-settings', { default_currency_code: 'chf' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toEqual({ ...defaults, default_currency_code: 'CHF' });
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
    for (const body of [{ default_currency_code: 'XXY' }, { default_currency_code: 'EU' }, {}, { default_currency_code: 'EUR', extra: 1 }, { invoice_number_prefix: 'IN V' }, { next_invoice_number: 0 }, { default_payment_terms_days: 366 }]) {
      const r = await admin.put('/api/v1/billing-settings', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message).toMatch(/^body[ .]/);
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

  it('numbering: prefixes and next numbers change, a sequence never moves back (422), terms default changes', async () => {
    const { tenant, admin } = await makeTenant(t);
    const put = await admin.put('/api/v1/billing-settings', { invoice_number_prefix: '2026/', next_invoice_number: 500, default_payment_terms_days: 14 });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ invoice_number_prefix: '2026/', next_invoice_number: 500, default_payment_terms_days: 14, default_currency_code: 'USD', quote_number_prefix: 'Q-' });
    const back = await admin.put('/api/v1/billing-settings', { next_invoice_number: 499 });
    expectError(back, 422, 'UNPROCESSABLE');
    expect(back.json().error.message).toBe('next_invoice_number may only move forward: 499 has already been issued');
    expect((await admin.get('/api/v1/billing-settings')).json().data.next_invoice_number).toBe(500);
    const events = await eventsOf(t, tenant, tenant);
    expect(events.map((e) => e.payload.changed_fields)).toEqual([['default_payment_terms_days', 'invoice_number_prefix', 'next_invoice_number']]);
  });
});
