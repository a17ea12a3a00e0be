import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, defaultProfileId, eventsOf, expectError, makeClient, randomId, tombstone } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function catalogue(api: Api) {
  const type = (await api.get('/api/v1/service-types')).json().data[0].service_type_id;
  const service = (await api.post('/api/v1/services', { custom_service_type_id: type, service_name: 'Managed endpoint', billing_method: 'fixed', unit_of_measure: 'device', default_rate: 2500 })).json().data.service_id as string;
  const rate = (await api.post('/api/v1/tax-rates', { name: 'NY', percentage: 8.875 })).json().data.tax_rate_id as string;
  return { service, rate };
}

async function draft(api: Api, clientId: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const res = await api.post('/api/v1/invoices', { client_id: clientId, issue_date: '2026-11-01', items, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

describe('invoices', () => {
  it('a draft with items priced exactly: half-even per line, tax per line, totals the sum of lines; catalogue defaults', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { service, rate } = await catalogue(admin);
    const client = await makeClient(admin, { client_name: 'Acme', payment_terms: 'Net 15' });
    const inv = await draft(admin, client.client_id, [
      { description: 'Half cents', quantity: 1.5, unit_price_cents: 3, tax_rate_id: rate },
      { service_id: service, quantity: 3 },
      { description: 'Untaxed', quantity: 0.0001, unit_price_cents: 5000, tax_rate_id: null },
    ]);
    expect(inv).toMatchObject({ status: 'draft', invoice_number: null, client_name: 'Acme', currency_code: 'USD', issue_date: '2026-11-01', due_date: '2026-11-16', is_generated: false });
    expect(inv.billing_profile_id).toBe(await defaultProfileId(admin, client.client_id));
    // 1.5 × 3 = 4.5 → 4 (half to even); 4 × 8.875 % = 0.355 → 0; 3 × 2500 = 7500 (no default rate: untaxed); 0.0001 × 5000 = 0.5 → 0.
    expect(inv.items.map((i: { total_cents: number; tax_cents: number; description: string }) => [i.description, i.total_cents, i.tax_cents])).toEqual([
      ['Half cents', 4, 0],
      ['Managed endpoint', 7500, 0],
      ['Untaxed', 0, 0],
    ]);
    expect(inv).toMatchObject({ subtotal_cents: 7504, tax_cents: 0, total_cents: 7504, amount_paid_cents: 0, credited_cents: 0, balance_cents: 7504 });
    const item = (await admin.post(`/api/v1/invoices/${inv.invoice_id}/items`, { description: 'Taxed', quantity: 2, unit_price_cents: 1000, tax_rate_id: rate })).json().data;
    // 2000 × 8.875 % = 177.5 → 178 (half to even: 177 is odd).
    expect(item).toMatchObject({ total_cents: 2000, tax_cents: 178, tax_percentage: 8.875, display_order: 3 });
    const got = (await admin.get(`/api/v1/invoices/${inv.invoice_id}`)).json().data;
    expect(got).toMatchObject({ subtotal_cents: 9504, tax_cents: 178, total_cents: 9682, balance_cents: 9682 });
    expect((await admin.put(`/api/v1/invoices/${inv.invoice_id}/items/${item.item_id}`, { quantity: 1.0001 })).json().data).toMatchObject({ total_cents: 1000, tax_cents: 89 });
    expect((await admin.delete(`/api/v1/invoices/${inv.invoice_id}/items/${item.item_id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/v1/invoices/${inv.invoice_id}`)).json().data.total_cents).toBe(7504);
    expect((await eventsOf(t, tenant, inv.invoice_id)).map((e) => e.event_type)).toEqual(['invoice.created', 'invoice.updated', 'invoice.updated', 'invoice.updated']);
  });

  it('finalize takes a gapless number (deleted drafts leave no gap), then send, pay and the transitions that are refused', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put('/api/v1/billing-settings', { invoice_number_prefix: 'A-', next_invoice_number: 7 });
    const client = await makeClient(admin);
    const line = [{ description: 'Work', quantity: 1, unit_price_cents: 10_000 }];
    const a = await draft(admin, client.client_id, line);
    const gone = await draft(admin, client.client_id, line);
    const b = await draft(admin, client.client_id, line);
    expect((await admin.delete(`/api/v1/invoices/${gone.invoice_id}`)).statusCode).toBe(204);
    const fa = await admin.post(`/api/v1/invoices/${a.invoice_id}/finalize`, {});
    expect(fa.statusCode, fa.body).toBe(200);
    expect(fa.json().data).toMatchObject({ invoice_number: 'A-0007', status: 'finalized' });
    expect((await admin.post(`/api/v1/invoices/${b.invoice_id}/finalize`)).json().data.invoice_number).toBe('A-0008');

    const illegal = await admin.post(`/api/v1/invoices/${a.invoice_id}/finalize`, {});
    expectError(illegal, 409, 'CONFLICT');
    expect(illegal.json().error.message).toBe('Invoice A-0007 is finalized; only a draft can be finalized');
    expectError(await admin.put(`/api/v1/invoices/${a.invoice_id}`, { po_number: 'X' }), 409, 'CONFLICT');
    expectError(await admin.post(`/api/v1/invoices/${a.invoice_id}/items`, { description: 'More', quantity: 1, unit_price_cents: 1 }), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/invoices/${a.invoice_id}`), 409, 'CONFLICT');
    const draftSend = await admin.post(`/api/v1/invoices/${(await draft(admin, client.client_id, line)).invoice_id}/send`, {});
    expectError(draftSend, 409, 'CONFLICT');
    expect(draftSend.json().error.message).toMatch(/is draft; only a finalized invoice can be sent$/);

    expect((await admin.post(`/api/v1/invoices/${a.invoice_id}/send`, {})).json().data.status).toBe('sent');
    expectError(await admin.post(`/api/v1/invoices/${a.invoice_id}/send`, {}), 409, 'CONFLICT');
    const p1 = await admin.post(`/api/v1/invoices/${a.invoice_id}/payments`, { amount_cents: 4000, method: 'card', reference: 'ch_1', payment_date: '2026-11-20' });
    expect(p1.statusCode, p1.body).toBe(201);
    expect(p1.json().data.invoice).toMatchObject({ status: 'partially_paid', amount_paid_cents: 4000, balance_cents: 6000 });
    expect(p1.json().data.payment).toMatchObject({ amount_cents: 4000, applied_cents: 4000, to_credit_cents: 0, method: 'card', reference: 'ch_1' });
    const p2 = (await admin.post(`/api/v1/invoices/${a.invoice_id}/payments`, { amount_cents: 6500, method: 'bank_transfer' })).json().data;
    expect(p2.invoice).toMatchObject({ status: 'paid', amount_paid_cents: 10_000, balance_cents: 0 });
    expect(p2.payment).toMatchObject({ applied_cents: 6000, to_credit_cents: 500 });
    expect(p2.invoice.paid_at).not.toBeNull();
    expect((await admin.get(`/api/v1/clients/${client.client_id}/credit`)).json().data).toEqual([
      { billing_profile_id: a.billing_profile_id, billing_profile_name: a.billing_profile_name, currency_code: 'USD', balance_cents: 500 },
    ]);
    expectError(await admin.post(`/api/v1/invoices/${a.invoice_id}/payments`, { amount_cents: 1, method: 'cash' }), 409, 'CONFLICT');
    const noVoid = await admin.post(`/api/v1/invoices/${a.invoice_id}/void`, { reason: 'Wrong client' });
    expectError(noVoid, 409, 'CONFLICT');
    expect(noVoid.json().error.message).toContain('issue a credit note for the remaining 10000 cents before voiding');
    expect((await admin.get(`/api/v1/invoices/${a.invoice_id}/payments`)).json().data.map((p: { amount_cents: number }) => p.amount_cents)).toEqual([6500, 4000]);

    // A credit note reversing what was paid turns it into client credit; then the invoice can be voided.
    const cn = await admin.post(`/api/v1/invoices/${a.invoice_id}/credit-notes`, { amount_cents: 10_000, reason: 'Billed to the wrong client' });
    expect(cn.statusCode, cn.body).toBe(201);
    expect(cn.json().data.credit_note).toMatchObject({ credit_note_number: 'CN-0001', amount_cents: 10_000, applied_cents: 0, to_credit_cents: 10_000 });
    expectError(await admin.post(`/api/v1/invoices/${a.invoice_id}/credit-notes`, { amount_cents: 1, reason: 'More' }), 422, 'UNPROCESSABLE');
    const voided = await admin.post(`/api/v1/invoices/${a.invoice_id}/void`, { reason: 'Wrong client' });
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json().data).toMatchObject({ status: 'void', void_reason: 'Wrong client', invoice_number: 'A-0007' });
    expectError(await admin.post(`/api/v1/invoices/${a.invoice_id}/void`, { reason: 'again' }), 409, 'CONFLICT');
    expect((await admin.get(`/api/v1/clients/${client.client_id}/credit`)).json().data[0].balance_cents).toBe(10_500);

    // Client credit pays the next invoice.
    const applied = await admin.post(`/api/v1/invoices/${b.invoice_id}/apply-credit`, {});
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data).toMatchObject({ applied_cents: 10_000, remaining_credit_cents: 500, invoice: { status: 'paid', credited_cents: 10_000, balance_cents: 0 } });
    expect((await eventsOf(t, tenant, a.invoice_id)).map((e) => e.event_type)).toEqual([
      'invoice.created', 'invoice.finalized', 'invoice.sent', 'invoice.payment_recorded', 'invoice.payment_recorded', 'invoice.paid', 'invoice.credited', 'invoice.voided',
    ]);
  });

  it('voiding gives applied client credit back; a draft is deleted, not voided; an empty draft cannot be finalized', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const line = [{ description: 'Work', quantity: 1, unit_price_cents: 1000 }];
    const first = await draft(admin, client.client_id, line);
    await admin.post(`/api/v1/invoices/${first.invoice_id}/finalize`);
    await admin.post(`/api/v1/invoices/${first.invoice_id}/payments`, { amount_cents: 1600, method: 'check' });
    const second = await draft(admin, client.client_id, line);
    await admin.post(`/api/v1/invoices/${second.invoice_id}/finalize`);
    expect((await admin.post(`/api/v1/invoices/${second.invoice_id}/apply-credit`, { amount_cents: 400 })).json().data.invoice).toMatchObject({ status: 'partially_paid', balance_cents: 600 });
    expectError(await admin.post(`/api/v1/invoices/${second.invoice_id}/apply-credit`, { amount_cents: 300 }), 422, 'UNPROCESSABLE');
    expect((await admin.post(`/api/v1/invoices/${second.invoice_id}/void`, { reason: 'Duplicate' })).statusCode).toBe(200);
    expect((await admin.get(`/api/v1/clients/${client.client_id}/credit`)).json().data[0].balance_cents).toBe(600);
    const entries = (await admin.get(`/api/v1/clients/${client.client_id}/credit/entries`)).json().data;
    expect(entries.map((e: { kind: string; amount_cents: number }) => [e.kind, e.amount_cents]).sort()).toEqual([['applied', -400], ['applied', 400], ['overpayment', 600]]);
    const empty = await draft(admin, client.client_id, []);
    expectError(await admin.post(`/api/v1/invoices/${empty.invoice_id}/finalize`), 422, 'UNPROCESSABLE');
    expectError(await admin.post(`/api/v1/invoices/${empty.invoice_id}/void`, { reason: 'x' }), 409, 'CONFLICT');
  });

  it('concurrent payments on one invoice: none is lost', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const inv = await draft(admin, client.client_id, [{ description: 'Work', quantity: 1, unit_price_cents: 10_000 }]);
    await admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`);
    const results = await Promise.all(Array.from({ length: 12 }, () => admin.post(`/api/v1/invoices/${inv.invoice_id}/payments`, { amount_cents: 1000, method: 'cash' })));
    const codes = results.map((r) => r.statusCode).sort();
    // Ten payments fill the balance; the others find it paid (409) or pay into client credit first.
    const after = (await admin.get(`/api/v1/invoices/${inv.invoice_id}`)).json().data;
    const payments = (await admin.get(`/api/v1/invoices/${inv.invoice_id}/payments?limit=100`)).json().data as { amount_cents: number; applied_cents: number }[];
    expect(payments.length).toBe(codes.filter((c) => c === 201).length);
    expect(payments.reduce((s, p) => s + p.applied_cents, 0)).toBe(10_000);
    expect(after).toMatchObject({ status: 'paid', amount_paid_cents: 10_000, balance_cents: 0 });
    expect(codes.filter((c) => c !== 201).every((c) => c === 409)).toBe(true);
  });

  it('lists filter by status, client, profile, dates, overdue and search; portal keys see their own finalized invoices and client-visible notes only', async () => {
    const { admin, tenant } = await makeTenant(t);
    const mine = await makeClient(admin, { client_name: 'Mine Ltd' });
    const theirs = await makeClient(admin, { client_name: 'Theirs Inc' });
    const line = [{ description: 'Work', quantity: 1, unit_price_cents: 500 }];
    const old = await draft(admin, mine.client_id, line, { issue_date: '2020-01-01', due_date: '2020-01-31', po_number: 'PO-77' });
    await admin.post(`/api/v1/invoices/${old.invoice_id}/finalize`);
    const fresh = await draft(admin, mine.client_id, line);
    // Issued today, so it is never overdue whatever day the suite runs.
    const other = await draft(admin, theirs.client_id, line, { issue_date: new Date().toISOString().slice(0, 10) });
    await admin.post(`/api/v1/invoices/${other.invoice_id}/finalize`);
    const ids = async (q: string, api: Api = admin) => (await api.get(`/api/v1/invoices${q}`)).json().data.map((i: { invoice_id: string }) => i.invoice_id).sort();
    expect(await ids('?status=draft')).toEqual([fresh.invoice_id]);
    expect(await ids(`?client_id=${mine.client_id}`)).toEqual([old.invoice_id, fresh.invoice_id].sort());
    expect(await ids(`?billing_profile_id=${other.billing_profile_id}`)).toEqual([other.invoice_id]);
    expect(await ids('?overdue=true')).toEqual([old.invoice_id]);
    expect(await ids('?from=2020-01-01&to=2020-12-31')).toEqual([old.invoice_id]);
    expect(await ids('?search=po-77')).toEqual([old.invoice_id]);
    expect(await ids('?search=theirs')).toEqual([other.invoice_id]);
    expect((await admin.get(`/api/v1/invoices/${old.invoice_id}`)).json().data.is_overdue).toBe(true);
    expectError(await admin.get('/api/v1/invoices?from=2021-01-01&to=2020-01-01'), 400, 'VALIDATION_ERROR');

    await admin.post(`/api/v1/invoices/${old.invoice_id}/annotations`, { content: 'Chase them' });
    await admin.post(`/api/v1/invoices/${old.invoice_id}/annotations`, { content: 'Thank you for your business', is_internal: false });
    const portal = (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: mine.client_id })).api;
    expect(await ids('', portal)).toEqual([old.invoice_id]);
    expect(await ids(`?client_id=${theirs.client_id}`, portal)).toEqual([]);
    expectError(await portal.get(`/api/v1/invoices/${fresh.invoice_id}`), 404, 'NOT_FOUND');
    expectError(await portal.get(`/api/v1/invoices/${other.invoice_id}`), 404, 'NOT_FOUND');
    expect((await portal.get(`/api/v1/invoices/${old.invoice_id}/annotations`)).json().data.map((a: { content: string }) => a.content)).toEqual(['Thank you for your business']);
    expect((await admin.get(`/api/v1/invoices/${old.invoice_id}/annotations`)).json().data).toHaveLength(2);
    expectError(await portal.post(`/api/v1/invoices/${old.invoice_id}/payments`, { amount_cents: 1, method: 'cash' }), 403, 'FORBIDDEN');
    expectError(await portal.post('/api/v1/invoices', { client_id: mine.client_id }), 403, 'FORBIDDEN');
    const pdf = await portal.get(`/api/v1/invoices/${old.invoice_id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const { extractText } = await import('unpdf');
    const text = (await extractText(new Uint8Array(pdf.rawPayload), { mergePages: true })).text;
    expect(text).toContain('INV-0001');
    expect(text).toContain('Thank you for your business');
    expect(text).not.toContain('Chase them');
    expect(text).toContain('USD 5.00');
  });

  it('400 naming the field, 401, 403 by role, 404 for another tenant, 409 for a merged client', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeClient(admin);
    const foreign = await makeClient((await makeTenant(t)).admin);
    for (const [body, field] of [
      [{ client_id: foreign.client_id }, 'body.client_id'],
      [{ client_id: client.client_id, billing_profile_id: randomId() }, 'body.billing_profile_id'],
      [{ client_id: client.client_id, currency_code: 'XYZ' }, 'body.currency_code'],
      [{ client_id: client.client_id, issue_date: '2026-02-01', due_date: '2026-01-01' }, 'body.due_date'],
      [{ client_id: client.client_id, items: [{ quantity: 1, unit_price_cents: 1 }] }, 'body.items.0.description'],
      [{ client_id: client.client_id, items: [{ description: 'x', quantity: 1.00001, unit_price_cents: 1 }] }, 'body.items.0.quantity'],
      [{ client_id: client.client_id, items: [{ description: 'x', quantity: 1 }] }, 'body.items.0.unit_price_cents'],
      [{ client_id: client.client_id, items: [{ description: 'x', quantity: 1, unit_price_cents: 1, tax_rate_id: randomId() }] }, 'body.items.0.tax_rate_id'],
      [{ client_id: client.client_id, items: [{ description: 'x', quantity: 1, unit_price_cents: -1 }] }, 'body.items.0.unit_price_cents'],
      [{ client_id: client.client_id, extra: 1 }, 'body'],
    ] as const) {
      const r = await admin.post('/api/v1/invoices', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    expectError(await admin.get('/api/v1/invoices/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`/api/v1/invoices/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get('/api/v1/invoices'), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/invoices'), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    const inv = await draft(admin, client.client_id, [{ description: 'Work', quantity: 1, unit_price_cents: 1 }]);
    expect((await manager.get(`/api/v1/invoices/${inv.invoice_id}`)).statusCode).toBe(200);
    expectError(await manager.post(`/api/v1/invoices/${inv.invoice_id}/finalize`), 403, 'FORBIDDEN');
    const other = await makeTenant(t);
    expectError(await other.admin.get(`/api/v1/invoices/${inv.invoice_id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`), 404, 'NOT_FOUND');
    const survivor = await makeClient(admin);
    await tombstone(t, tenant, client.client_id, survivor.client_id);
    expectError(await admin.post('/api/v1/invoices', { client_id: client.client_id }), 409, 'CONFLICT');
    expectError(await admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`), 409, 'CONFLICT');
  });
});
