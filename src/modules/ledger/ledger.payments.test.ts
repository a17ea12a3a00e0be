import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant } from '../../../test/factories.ts';
import { expectError } from '../../../test/client-factories.ts';
import type { FakeQuickBooks } from '../../../test/fakes/qbo-server.ts';
import { connectLedger, finalizedInvoice, seedBooks, startLedgerApp, stopLedgerApp } from '../../../test/ledger-kit.ts';
import type { TestApp } from '../../../test/harness.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

/** A connected tenant with everything mapped and one invoice exported; returns the ledger's invoice id. */
async function exported(realmId: string) {
  const ten = await makeTenant(t);
  await connectLedger(t, ten.admin, fake, realmId);
  const books = await seedBooks(ten.admin, 'Initech LLC');
  await ten.admin.put('/api/v1/quickbooks/tax-codes/mappings', { mappings: [{ tax_region: 'NY', qbo_tax_code_id: 'TAX' }] });
  await ten.admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
  await ten.admin.post('/api/v1/quickbooks/mappings', { entity_type: 'payment_method', local_id: 'check', external_id: '13' });
  const invoice = await finalizedInvoice(ten.admin, books);
  const run = (await ten.admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: invoice.invoice_id })).json().data;
  expect(run.status).toBe('completed');
  const remote = fake.list(realmId, 'Invoice')[0]!;
  return { ...ten, books, invoice, remote };
}

const payment = (realmId: string, customerId: string, lines: { invoiceId: string; amount: number }[], extra: Record<string, unknown> = {}) =>
  fake.seed(realmId, 'Payment', {
    CustomerRef: { value: customerId },
    TxnDate: '2026-10-20',
    CurrencyRef: { value: 'USD' },
    PaymentMethodRef: { value: '13' },
    PaymentRefNum: 'CHK-1',
    TotalAmt: lines.reduce((n, l) => n + l.amount, 0),
    Line: lines.map((l) => ({ Amount: l.amount, LinkedTxn: [{ TxnId: l.invoiceId, TxnType: 'Invoice' }] })),
    ...extra,
  });

describe('ledger payment sync', () => {
  it('applies each ledger payment once, re-applies a changed amount, and reverses a deleted payment', async () => {
    const { admin, invoice, remote } = await exported('5401');
    const customer = (remote.CustomerRef as { value: string }).value;
    const p1 = payment('5401', customer, [{ invoiceId: remote.Id, amount: 50 }]);
    const first = await admin.post('/api/v1/quickbooks/payments/sync', {});
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ operation_type: 'payment_sync', status: 'completed', records_successful: 1 });
    expect(first.json().data.outcomes[0]).toMatchObject({ outcome: 'applied', external_id: `${p1.Id}:${remote.Id}` });
    const ours = (await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data;
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ amount_cents: 5000, method: 'check', payment_date: '2026-10-20', reference: `QuickBooks payment ${p1.Id} (CHK-1)`, reversed_at: null });
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}`)).json().data).toMatchObject({ status: 'partially_paid', amount_paid_cents: 5000 });

    // Nothing new: nothing recorded.
    const again = (await admin.post('/api/v1/quickbooks/payments/sync', { date_range: { start_date: '2026-10-01', end_date: '2026-10-31' } })).json().data;
    expect(again.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['unchanged']);
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data).toHaveLength(1);

    // Edited in QuickBooks: 60 instead of 50 — the old one reversed, the new amount recorded.
    fake.edit('5401', 'Payment', p1.Id, { TotalAmt: 60, Line: [{ Amount: 60, LinkedTxn: [{ TxnId: remote.Id, TxnType: 'Invoice' }] }] });
    const edited = (await admin.post('/api/v1/quickbooks/payments/sync', {})).json().data;
    expect(edited.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['updated']);
    const afterEdit = (await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data;
    expect(afterEdit.map((p: { amount_cents: number; reversed_at: string | null }) => [p.amount_cents, p.reversed_at !== null]).sort()).toEqual([[5000, true], [6000, false]]);
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}`)).json().data.amount_paid_cents).toBe(6000);

    // Deleted in QuickBooks: reversed here.
    fake.remove('5401', 'Payment', p1.Id);
    const deleted = (await admin.post('/api/v1/quickbooks/payments/sync', {})).json().data;
    expect(deleted.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['reversed']);
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}`)).json().data).toMatchObject({ status: 'finalized', amount_paid_cents: 0, balance_cents: invoice.total_cents });
    expect((await admin.get('/api/v1/quickbooks/mappings?entity_type=payment')).json().data).toHaveLength(0);
  });

  it('reports payments on invoices it does not know, and records a payment and its mapping together or not at all', async () => {
    const { admin, invoice, remote } = await exported('5402');
    const customer = (remote.CustomerRef as { value: string }).value;
    const stranger = fake.seed('5402', 'Invoice', { CustomerRef: { value: customer }, DocNumber: 'QB-ONLY', TxnDate: '2026-10-05', Line: [{ DetailType: 'SalesItemLineDetail', Amount: 10, SalesItemLineDetail: { ItemRef: { value: '7' }, Qty: 1, UnitPrice: 10 } }] });
    const p = payment('5402', customer, [{ invoiceId: stranger.Id, amount: 10 }, { invoiceId: remote.Id, amount: 25 }], { PaymentRefNum: 'CHK-2' });
    await sql.raw(`create or replace function ledger_test_crash() returns trigger language plpgsql as $$ begin if new.entity_type = 'payment' then raise exception 'crash'; end if; return new; end $$`).execute(t.database.db);
    await sql.raw('create trigger ledger_test_crash before insert on ledger_mappings for each row execute function ledger_test_crash()').execute(t.database.db);
    try {
      expect((await admin.post('/api/v1/quickbooks/payments/sync', { qbo_payment_id: p.Id })).statusCode).toBe(500);
    } finally {
      await sql.raw('drop trigger ledger_test_crash on ledger_mappings').execute(t.database.db);
    }
    // The crash rolled back our payment with its mapping.
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data).toHaveLength(0);
    const run = (await admin.post('/api/v1/quickbooks/payments/sync', { qbo_payment_id: p.Id })).json().data;
    expect(run).toMatchObject({ status: 'partial', records_successful: 1, records_failed: 1 });
    expect(run.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['unmatched', 'applied']);
    expect(run.outcomes[0].message).toContain(`QuickBooks invoice ${stranger.Id} is not linked`);
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data.map((x: { amount_cents: number }) => x.amount_cents)).toEqual([2500]);
    const retry = (await admin.post(`/api/v1/quickbooks/sync/${run.sync_id}/retry`)).json().data;
    expect(retry.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['unmatched', 'unchanged']);
    expect((await admin.get(`/api/v1/invoices/${invoice.invoice_id}/payments`)).json().data).toHaveLength(1);
  });
});

describe('ledger invoice import', () => {
  it('links ledger invoices to ours by number, customer and total without exporting, reports the rest, and finds drift', async () => {
    const { admin, books } = await (async () => {
      const ten = await makeTenant(t);
      await connectLedger(t, ten.admin, fake, '5501');
      return { ...ten, books: await seedBooks(ten.admin, 'Umbrella Corp') };
    })();
    const inv = await finalizedInvoice(admin, books);
    const customer = fake.seed('5501', 'Customer', { DisplayName: 'Umbrella Corporation' });
    const line = (amount: number) => [{ DetailType: 'SalesItemLineDetail', Amount: amount, SalesItemLineDetail: { ItemRef: { value: '7' }, Qty: 1, UnitPrice: amount } }];
    const twin = fake.seed('5501', 'Invoice', { CustomerRef: { value: customer.Id }, DocNumber: inv.invoice_number, TxnDate: '2026-10-15', Line: line(inv.total_cents / 100) });
    const other = fake.seed('5501', 'Invoice', { CustomerRef: { value: customer.Id }, DocNumber: 'LEGACY-7', TxnDate: '2026-10-16', Line: line(99) });
    const res = await admin.post('/api/v1/quickbooks/invoices/import', { date_range: { start_date: '2026-10-01', end_date: '2026-10-31' } });
    expect(res.statusCode, res.body).toBe(200);
    const run = res.json().data;
    expect(run).toMatchObject({ operation_type: 'invoice_import', status: 'partial' });
    const byRemote = Object.fromEntries(run.outcomes.map((o: { external_id: string; outcome: string }) => [o.external_id, o.outcome]));
    expect(byRemote).toEqual({ [twin.Id]: 'linked', [other.Id]: 'unmatched' });
    expect((await admin.get('/api/v1/quickbooks/customers/mappings')).json().data[0]).toMatchObject({ local_id: books.client.client_id, external_id: customer.Id });
    const invoiceCount = fake.list('5501', 'Invoice').length;

    // Exporting the linked invoice does not create it again.
    await admin.put('/api/v1/quickbooks/tax-codes/mappings', { mappings: [{ tax_region: 'NY', qbo_tax_code_id: 'TAX' }] });
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
    const exported = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id })).json().data;
    expect(exported.outcomes[0].outcome).toBe('unchanged');
    expect(fake.list('5501', 'Invoice')).toHaveLength(invoiceCount);

    // The ledger's copy changes: the next import reports drift and marks the mapping.
    fake.edit('5501', 'Invoice', twin.Id, { Line: line(1) });
    const drift = (await admin.post('/api/v1/quickbooks/invoices/import', { qbo_invoice_id: twin.Id, import_payments: false })).json().data;
    expect(drift.outcomes[0]).toMatchObject({ outcome: 'drift', local_id: inv.invoice_id });
    expect(drift.outcomes[0].message).toContain('total');
    expect((await admin.get(`/api/v1/quickbooks/mappings?entity_type=invoice&external_id=${twin.Id}`)).json().data[0].sync_status).toBe('drift');
    expectError(await admin.post('/api/v1/quickbooks/invoices/import', { date_range: { start_date: '2026-11-01', end_date: '2026-10-01' } }), 400, 'VALIDATION_ERROR');
  });
});
