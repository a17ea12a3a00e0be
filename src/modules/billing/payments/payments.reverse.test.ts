import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant } from '../../../../test/factories.ts';
import { eventsOf, expectError, makeClient } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

describe('payment reversal', () => {
  it('puts the money back on the invoice, reopens it, takes back over-payment credit, and refuses twice or when the credit is spent', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const line = [{ description: 'Work', quantity: 1, unit_price_cents: 10_000 }];
    const make = async () => {
      const inv = (await admin.post('/api/v1/invoices', { client_id: client.client_id, items: line })).json().data;
      return (await admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`, {})).json().data;
    };
    const a = await make();
    const p1 = (await admin.post(`/api/v1/invoices/${a.invoice_id}/payments`, { amount_cents: 4000, method: 'check', reference: '1001' })).json().data.payment;
    const p2 = (await admin.post(`/api/v1/invoices/${a.invoice_id}/payments`, { amount_cents: 6500, method: 'card' })).json().data.payment;
    expect((await admin.get(`/api/v1/invoices/${a.invoice_id}`)).json().data).toMatchObject({ status: 'paid', balance_cents: 0 });
    expect((await admin.get(`/api/v1/clients/${client.client_id}/credit`)).json().data[0].balance_cents).toBe(500);

    // The cheque bounced: 4,000 back on the balance, the invoice partially paid again.
    const r1 = await admin.post(`/api/v1/payments/${p1.payment_id}/reverse`, { reason: 'Cheque bounced' });
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r1.json().data.payment).toMatchObject({ payment_id: p1.payment_id, reversal_reason: 'Cheque bounced' });
    expect(r1.json().data.payment.reversed_at).not.toBeNull();
    expect(r1.json().data.invoice).toMatchObject({ status: 'partially_paid', amount_paid_cents: 6000, balance_cents: 4000, paid_at: null });
    expectError(await admin.post(`/api/v1/payments/${p1.payment_id}/reverse`, { reason: 'again' }), 409, 'CONFLICT');

    // The card payment's 500 over-payment credit goes too; with nothing left the invoice is finalized again.
    const r2 = (await admin.post(`/api/v1/payments/${p2.payment_id}/reverse`, { reason: 'Charge-back' })).json().data;
    expect(r2.invoice).toMatchObject({ status: 'finalized', amount_paid_cents: 0, balance_cents: 10_000 });
    expect((await admin.get(`/api/v1/clients/${client.client_id}/credit`)).json().data[0].balance_cents).toBe(0);
    expect((await eventsOf(t, tenant, a.invoice_id)).filter((e) => e.event_type === 'invoice.payment_reversed').map((e) => (e.payload as { payment_id: string }).payment_id)).toEqual([p1.payment_id, p2.payment_id]);

    // An over-payment whose credit was spent on another invoice cannot be reversed until that is undone.
    const b = await make();
    const c = await make();
    const over = (await admin.post(`/api/v1/invoices/${b.invoice_id}/payments`, { amount_cents: 15_000, method: 'bank_transfer' })).json().data.payment;
    expect((await admin.post(`/api/v1/invoices/${c.invoice_id}/apply-credit`, {})).json().data.applied_cents).toBe(5000);
    const spent = await admin.post(`/api/v1/payments/${over.payment_id}/reverse`, { reason: 'Wrong account' });
    expectError(spent, 409, 'CONFLICT');
    expect(spent.json().error.details).toEqual({ available_cents: 0 });
    expect((await admin.get(`/api/v1/invoices/${b.invoice_id}`)).json().data.status).toBe('paid');
    expectError(await admin.post(`/api/v1/payments/${over.payment_id}/reverse`, {}), 400, 'VALIDATION_ERROR');
  });
});
