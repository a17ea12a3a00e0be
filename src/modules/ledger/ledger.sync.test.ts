import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant } from '../../../test/factories.ts';
import { eventsOf, expectError } from '../../../test/client-factories.ts';
import type { FakeQuickBooks } from '../../../test/fakes/qbo-server.ts';
import { connectLedger, finalizedInvoice, ledgerWorker, seedBooks, startLedgerApp, stopLedgerApp } from '../../../test/ledger-kit.ts';
import type { TestApp } from '../../../test/harness.ts';
import type { Api } from '../../../test/factories.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

/** A connected tenant in its own company (realm), with the income account and NY tax region mapped. */
async function ready(realmId: string, opts: { mapTax?: boolean } = {}) {
  const ten = await makeTenant(t);
  await connectLedger(t, ten.admin, fake, realmId);
  const acc = await ten.admin.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', qbo_account_id: '1', is_default: true }] });
  expect(acc.statusCode, acc.body).toBe(200);
  const books = await seedBooks(ten.admin, 'Acme, Inc.');
  if (opts.mapTax !== false) {
    const tax = await ten.admin.put('/api/v1/quickbooks/tax-codes/mappings', { mappings: [{ tax_region: 'ny', qbo_tax_code_id: 'TAX' }] });
    expect(tax.statusCode, tax.body).toBe(200);
  }
  return { ...ten, books };
}

const mapDefaultItem = (api: Api) => api.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: '00000000-0000-4000-8000-000000000000', external_id: '8', is_default: true });

describe('ledger mappings and reference data', () => {
  it('reads the chart of accounts through (filters, paging); maps accounts and tax codes, refusing what the ledger lacks', async () => {
    const { admin } = await ready('5001');
    const accounts = (await admin.get('/api/v1/quickbooks/accounts?limit=2')).json();
    expect(accounts.pagination).toMatchObject({ total: 6, limit: 2, hasNext: true });
    expect((await admin.get('/api/v1/quickbooks/accounts?active=false')).json().data.map((a: { name: string }) => a.name)).toEqual(['Old Income']);
    expect(accounts.data[0]).toMatchObject({ id: '1', name: 'Services', classification: 'Revenue', account_type: 'Income', active: true, currency_code: 'USD' });
    expect((await admin.get('/api/v1/quickbooks/accounts?search=consult')).json().data.map((a: { full_name: string }) => a.full_name)).toEqual(['Services:Consulting']);
    expect((await admin.get('/api/v1/quickbooks/tax-codes')).json().data.map((c: { id: string }) => c.id).sort()).toEqual(['NON', 'TAX']);
    expect((await admin.get('/api/v1/quickbooks/terms')).json().data[0]).toMatchObject({ name: 'Net 30', type: 'STANDARD', due_days: 30 });
    expect((await admin.get('/api/v1/quickbooks/payment-methods')).json().pagination.total).toBe(3);
    expect((await admin.get('/api/v1/quickbooks/items')).json().data[1]).toMatchObject({ id: '8', name: 'Hours', unit_price_cents: 15_000, income_account_id: '1' });

    const unknown = await admin.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', local_name: 'projects', qbo_account_id: '999' }] });
    expectError(unknown, 422, 'UNPROCESSABLE');
    expect(unknown.json().error.message).toContain("has no account '999'");
    expectError(await admin.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', qbo_account_id: '1', is_default: true }, { account_type: 'income', local_name: 'x', qbo_account_id: '2', is_default: true }] }), 400, 'VALIDATION_ERROR');
    const put = (await admin.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', local_name: 'projects', qbo_account_id: '3', is_default: true }] })).json().data;
    // The new default took over from income:default; both mappings remain (replace_existing was not set).
    expect(put.map((m: { local_id: string; is_default: boolean; external_name: string }) => [m.local_id, m.is_default, m.external_name])).toEqual([['income:default', false, 'Services'], ['income:projects', true, 'Consulting']]);
    const replaced = (await admin.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', qbo_account_id: '1', is_default: true }], replace_existing: true })).json().data;
    expect(replaced.map((m: { local_id: string }) => m.local_id)).toEqual(['income:default']);
    expect((await admin.get('/api/v1/quickbooks/accounts/mappings')).json().data.map((m: { local_id: string; external_id: string; is_default: boolean }) => [m.local_id, m.external_id, m.is_default])).toEqual([['income:default', '1', true]]);
    expect((await admin.get('/api/v1/quickbooks/tax-codes/mappings')).json().data.map((m: { local_id: string; external_id: string }) => [m.local_id, m.external_id])).toEqual([['ny', 'TAX']]);
  });

  it('generic mappings: both sides checked, duplicates 409, update, delete; customer mappings are typed', async () => {
    const { admin, books } = await ready('5002');
    const customer = fake.seed('5002', 'Customer', { DisplayName: 'Legacy Customer' });
    const create = await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'customer', local_id: books.client.client_id, external_id: customer.Id });
    expect(create.statusCode, create.body).toBe(201);
    const m = create.json().data;
    expect(m).toMatchObject({ entity_type: 'customer', realm_id: '5002', local_id: books.client.client_id, external_id: customer.Id, external_name: 'Legacy Customer', sync_status: 'synced' });
    expect(create.headers.location).toBe(`/api/v1/quickbooks/mappings/${m.mapping_id}`);
    expectError(await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'customer', local_id: books.client.client_id, external_id: customer.Id }), 409, 'CONFLICT');
    const missing = await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '4040' });
    expectError(missing, 422, 'UNPROCESSABLE');
    expect(missing.json().error.details.reason).toBe('external_not_found');
    const noClient = await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'customer', local_id: '0193a000-0000-7000-8000-000000000001', external_id: customer.Id });
    expectError(noClient, 422, 'UNPROCESSABLE');
    expect(noClient.json().error.details.reason).toBe('local_not_found');
    expectError(await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'account', local_id: 'nonsense', external_id: '1' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'payment_method', local_id: 'card', external_id: '14', metadata: [1] }), 400, 'VALIDATION_ERROR');
    const pm = await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'payment_method', local_id: 'card', external_id: '14', metadata: { note: 'Visa only' } });
    expect(pm.json().data).toMatchObject({ external_name: 'Visa', metadata: { note: 'Visa only' } });

    const list = (await admin.get('/api/v1/quickbooks/mappings?entity_type=customer')).json();
    expect(list.data.map((x: { mapping_id: string }) => x.mapping_id)).toEqual([m.mapping_id]);
    expect((await admin.get('/api/v1/quickbooks/customers/mappings')).json().data[0].mapping_id).toBe(m.mapping_id);
    const other = fake.seed('5002', 'Customer', { DisplayName: 'Other Customer' });
    const moved = (await admin.put(`/api/v1/quickbooks/mappings/${m.mapping_id}`, { external_id: other.Id })).json().data;
    expect(moved).toMatchObject({ external_id: other.Id, external_name: 'Other Customer' });
    // The customer route deletes customer mappings only.
    expectError(await admin.delete(`/api/v1/quickbooks/customers/mappings/${pm.json().data.mapping_id}`), 404, 'NOT_FOUND');
    expect((await admin.delete(`/api/v1/quickbooks/customers/mappings/${m.mapping_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/v1/quickbooks/mappings/${m.mapping_id}`), 404, 'NOT_FOUND');
    expect((await admin.delete(`/api/v1/quickbooks/mappings/${pm.json().data.mapping_id}`)).statusCode).toBe(204);
  });
});

describe('ledger invoice export', () => {
  it('refuses while items or tax regions are unmapped (naming them), then exports exactly once; unchanged invoices stay put', async () => {
    const { admin, tenant, books } = await ready('5101', { mapTax: false });
    const inv1 = await finalizedInvoice(admin, books);
    const inv2 = await finalizedInvoice(admin, books, '2026-10-20');
    const body = { date_range: { start_date: '2026-10-01', end_date: '2026-10-31' } };
    const refused = await admin.post('/api/v1/quickbooks/invoices/export', body);
    expectError(refused, 422, 'UNPROCESSABLE');
    const unmapped = refused.json().error.details.unmapped.map((u: { entity_type: string; local_id: string; invoice_ids: string[] }) => [u.entity_type, u.local_id, u.invoice_ids.length]);
    expect(unmapped).toEqual([['tax_code', 'ny', 2], ['item', '(default)', 2]]);
    expect(refused.json().error.message).toContain("tax code tax region 'NY'");
    expect(fake.list('5101', 'Invoice')).toHaveLength(0);
    expect((await admin.get('/api/v1/quickbooks/sync/history')).json().data).toHaveLength(0);

    await admin.put('/api/v1/quickbooks/tax-codes/mappings', { mappings: [{ tax_region: 'NY', qbo_tax_code_id: 'TAX' }] });
    expect((await mapDefaultItem(admin)).statusCode).toBe(422); // the default item's local id must be a catalogue record
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7' });
    // Lines without a service still need the default item.
    expect((await admin.post('/api/v1/quickbooks/invoices/export', body)).json().error.details.unmapped.map((u: { local_id: string }) => u.local_id)).toEqual(['(default)']);
    const svc2 = (await admin.post('/api/v1/services', { custom_service_type_id: (await admin.get('/api/v1/service-types')).json().data[0].service_type_id, service_name: 'Default line', billing_method: 'fixed', unit_of_measure: 'each', default_rate: 1 })).json().data.service_id;
    expect((await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: svc2, external_id: '8', is_default: true })).statusCode).toBe(201);

    const run = await admin.post('/api/v1/quickbooks/invoices/export', body);
    expect(run.statusCode, run.body).toBe(200);
    const r = run.json().data;
    expect(r).toMatchObject({ operation_type: 'invoice_export', status: 'completed', records_processed: 2, records_successful: 2, records_failed: 0 });
    expect(r.outcomes.map((o: { local_id: string; outcome: string }) => [o.local_id, o.outcome]).sort()).toEqual([[inv1.invoice_id, 'created'], [inv2.invoice_id, 'created']].sort());
    const ledgerInvoices = fake.list('5101', 'Invoice');
    expect(ledgerInvoices).toHaveLength(2);
    const one = ledgerInvoices.find((i) => i.DocNumber === inv1.invoice_number)!;
    expect(one).toMatchObject({ TxnDate: '2026-10-15', CurrencyRef: { value: 'USD' }, PrivateNote: `PSA invoice ${inv1.invoice_id}` });
    const lines = (one.Line as { DetailType: string; Amount: number; SalesItemLineDetail?: { ItemRef: { value: string }; Qty: number; UnitPrice: number; TaxCodeRef?: { value: string } } }[]).filter((l) => l.DetailType === 'SalesItemLineDetail');
    expect(lines.map((l) => [l.Amount, l.SalesItemLineDetail!.ItemRef.value, l.SalesItemLineDetail!.Qty, l.SalesItemLineDetail!.UnitPrice, l.SalesItemLineDetail!.TaxCodeRef?.value ?? null])).toEqual([[75, '7', 3, 25, 'TAX'], [180, '8', 1.5, 120, null]]);
    // The client became a QuickBooks customer (created: none matched), linked by a mapping.
    expect(fake.list('5101', 'Customer').map((c) => c.DisplayName)).toEqual(['Acme, Inc.']);
    expect((await admin.get('/api/v1/quickbooks/customers/mappings')).json().data[0]).toMatchObject({ local_id: books.client.client_id, external_name: 'Acme, Inc.' });
    expect((await eventsOf(t, tenant, r.sync_id)).map((e) => [e.event_type, (e.payload as { status: string }).status])).toEqual([['ledger.sync.completed', 'completed']]);

    // Again: nothing new in the ledger.
    const again = (await admin.post('/api/v1/quickbooks/invoices/export', body)).json().data;
    expect(again).toMatchObject({ status: 'completed', records_processed: 2, records_successful: 0, records_skipped: 2 });
    expect(again.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(fake.list('5101', 'Invoice')).toHaveLength(2);
    expect(fake.list('5101', 'Customer')).toHaveLength(1);

    // A draft is not exportable by id.
    const draft = (await admin.post('/api/v1/invoices', { client_id: books.client.client_id, items: [{ description: 'x', quantity: 1, unit_price_cents: 100 }] })).json().data;
    const refusedDraft = await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: draft.invoice_id });
    expectError(refusedDraft, 422, 'UNPROCESSABLE');
    expect(refusedDraft.json().error.details.reason).toBe('not_exportable');
  });

  it('links a client to the one customer whose name matches; an invoice changed on both sides is drift, reported and not overwritten', async () => {
    const { admin, books } = await ready('5102');
    const existing = fake.seed('5102', 'Customer', { DisplayName: 'ACME Inc' });
    await admin.put('/api/v1/quickbooks/mappings', {}).catch(() => undefined);
    const svc = books.service;
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: svc, external_id: '7', is_default: true });
    const inv = await finalizedInvoice(admin, books);
    const first = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id })).json().data;
    expect(first.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['created']);
    expect(fake.list('5102', 'Customer')).toHaveLength(1);
    expect(fake.list('5102', 'Invoice')[0]!.CustomerRef).toMatchObject({ value: existing.Id });

    // Someone edits the invoice in QuickBooks; here a payment changes ours.
    const remote = fake.list('5102', 'Invoice')[0]!;
    fake.edit('5102', 'Invoice', remote.Id, { DocNumber: 'CHANGED-1' });
    await admin.post(`/api/v1/invoices/${inv.invoice_id}/payments`, { amount_cents: 100, method: 'card' });
    const drift = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id })).json().data;
    expect(drift).toMatchObject({ status: 'failed', records_failed: 1 });
    expect(drift.outcomes[0]).toMatchObject({ outcome: 'drift', external_id: remote.Id });
    expect(drift.outcomes[0].message).toContain('number');
    expect(fake.get('5102', 'Invoice', remote.Id)!.DocNumber).toBe('CHANGED-1');
    const drifted = (await admin.get('/api/v1/quickbooks/mappings?entity_type=invoice')).json().data[0];
    expect(drifted).toMatchObject({ sync_status: 'drift' });

    // Accepting both sides as they are: the next export has nothing to report or push.
    const accepted = (await admin.put(`/api/v1/quickbooks/mappings/${drifted.mapping_id}`, { sync_status: 'synced' })).json().data;
    expect(accepted).toMatchObject({ sync_status: 'synced', sync_error: null, metadata: { doc_number: 'CHANGED-1' } });
    const calm = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id })).json().data;
    expect(calm.outcomes[0].outcome).toBe('unchanged');
    expect(fake.get('5102', 'Invoice', remote.Id)!.DocNumber).toBe('CHANGED-1');
  });

  it('creates a QuickBooks item for an unmapped service under the default income account, or takes the one of that name', async () => {
    const { admin, books } = await ready('5106');
    const svc = (await admin.get(`/api/v1/services/${books.service}`)).json().data;
    const same = fake.seed('5106', 'Item', { Name: svc.service_name, Type: 'Service', Active: true, IncomeAccountRef: { value: '1' } });
    const other = (await admin.post('/api/v1/services', { custom_service_type_id: svc.custom_service_type_id, service_name: 'Backup seats', billing_method: 'fixed', unit_of_measure: 'seat', default_rate: 900 })).json().data.service_id;
    const items = fake.list('5106', 'Item').length;
    const draft = (await admin.post('/api/v1/invoices', { client_id: books.client.client_id, issue_date: '2026-10-03', items: [{ service_id: books.service, quantity: 1 }, { service_id: other, quantity: 2 }] })).json().data;
    await admin.post(`/api/v1/invoices/${draft.invoice_id}/finalize`, {});
    const run = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: draft.invoice_id })).json().data;
    expect(run.status).toBe('completed');
    const mapped = Object.fromEntries((await admin.get('/api/v1/quickbooks/mappings?entity_type=item')).json().data.map((m: { local_id: string; external_id: string }) => [m.local_id, m.external_id]));
    expect(mapped[books.service]).toBe(same.Id);
    expect(fake.list('5106', 'Item')).toHaveLength(items + 1);
    expect(fake.get('5106', 'Item', mapped[other])).toMatchObject({ Name: 'Backup seats', IncomeAccountRef: { value: '1' } });
  });

  it('carries our void of an exported invoice to the ledger once', async () => {
    const { admin, books } = await ready('5105');
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
    const inv = await finalizedInvoice(admin, books);
    const never = await finalizedInvoice(admin, books);
    await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id });
    for (const id of [inv.invoice_id, never.invoice_id]) expect((await admin.post(`/api/v1/invoices/${id}/void`, { reason: 'Billed twice' })).statusCode).toBe(200);
    const run = (await admin.post('/api/v1/quickbooks/invoices/export', {})).json().data;
    // The void of the exported one goes to QuickBooks; the one never exported is not selected at all.
    expect(run.outcomes.map((o: { local_id: string; outcome: string; message: string }) => [o.local_id, o.outcome, o.message])).toEqual([[inv.invoice_id, 'updated', 'Voided in QuickBooks']]);
    const remote = fake.list('5105', 'Invoice');
    expect(remote).toHaveLength(1);
    expect(remote[0]).toMatchObject({ TotalAmt: 0 });
    expect(String(remote[0]!.PrivateNote)).toMatch(/^Voided/);
    const again = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id })).json().data;
    expect(again.outcomes[0].outcome).toBe('unchanged');
    expectError(await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: never.invoice_id }), 422, 'UNPROCESSABLE');
  });

  it('a crash between the ledger create and our mapping write: the retry sends the same request id, and the ledger holds one invoice', async () => {
    const { admin, books } = await ready('5103');
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
    const inv = await finalizedInvoice(admin, books);
    // The mapping write fails (the process dies after QuickBooks created the invoice).
    await sql.raw(`create or replace function ledger_test_crash() returns trigger language plpgsql as $$ begin if new.entity_type = 'invoice' then raise exception 'crash'; end if; return new; end $$`).execute(t.database.db);
    await sql.raw('create trigger ledger_test_crash before insert on ledger_mappings for each row execute function ledger_test_crash()').execute(t.database.db);
    try {
      const crashed = await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: inv.invoice_id });
      expect(crashed.statusCode).toBe(500);
    } finally {
      await sql.raw('drop trigger ledger_test_crash on ledger_mappings').execute(t.database.db);
    }
    expect(fake.list('5103', 'Invoice')).toHaveLength(1);
    const history = (await admin.get('/api/v1/quickbooks/sync/history')).json().data;
    expect(history[0]).toMatchObject({ status: 'failed' });
    const retried = await admin.post(`/api/v1/quickbooks/sync/${history[0].sync_id}/retry`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ status: 'completed', attempt: 2 });
    expect(retried.json().data.outcomes[0]).toMatchObject({ outcome: 'created', external_id: fake.list('5103', 'Invoice')[0]!.Id });
    expect(fake.list('5103', 'Invoice')).toHaveLength(1);
    const creates = fake.received.filter((r) => r.method === 'POST' && r.path === '/v3/company/5103/invoice');
    expect(new Set(creates.map((r) => r.query.requestid)).size).toBe(1);
  });

  it('survives a 429 storm and an access token that expires mid-run', async () => {
    const { admin, books } = await ready('5104');
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
    const invoices = [await finalizedInvoice(admin, books), await finalizedInvoice(admin, books), await finalizedInvoice(admin, books)];
    fake.throttleNext(3, 0);
    const storm = (await admin.post('/api/v1/quickbooks/invoices/export', {})).json().data;
    expect(storm).toMatchObject({ status: 'completed', records_successful: 3 });
    const more = await finalizedInvoice(admin, books);
    fake.expireAccessTokens();
    const expired = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: more.invoice_id })).json().data;
    expect(expired).toMatchObject({ status: 'completed', records_successful: 1 });
    expect(fake.list('5104', 'Invoice')).toHaveLength(invoices.length + 1);
    // A storm longer than the adapter's retries fails the run as a whole, with the reason.
    const last = await finalizedInvoice(admin, books);
    fake.throttleNext(50, 0);
    const failed = (await admin.post('/api/v1/quickbooks/invoices/export', { invoice_id: last.invoice_id })).json().data;
    expect(failed).toMatchObject({ status: 'failed', error_details: { reason: 'throttled' } });
    fake.clear();
  });
});

describe('ledger customer sync, bulk and full runs', () => {
  it('customer sync links, creates and updates; conflicts are reported', async () => {
    const { admin, books } = await ready('5201');
    const other = await seedBooks(admin, 'Globex Corporation');
    fake.seed('5201', 'Customer', { DisplayName: 'Globex' });
    const run = (await admin.post('/api/v1/quickbooks/customers/sync', { sync_type: 'create' })).json().data;
    const byClient = Object.fromEntries(run.outcomes.map((o: { local_id: string; outcome: string }) => [o.local_id, o.outcome]));
    expect(byClient[books.client.client_id]).toBe('created');
    expect(byClient[other.client.client_id]).toBe('linked');
    expect(fake.list('5201', 'Customer')).toHaveLength(2);
    // A rename here is pushed; a rename on both sides is a conflict.
    await admin.put(`/api/v1/clients/${books.client.client_id}`, { client_name: 'Acme Holdings' });
    const updated = (await admin.post('/api/v1/quickbooks/customers/sync', { client_id: books.client.client_id })).json().data;
    expect(updated.outcomes[0].outcome).toBe('updated');
    expect(fake.list('5201', 'Customer').map((c) => c.DisplayName).sort()).toEqual(['Acme Holdings', 'Globex']);
    const mapped = (await admin.get(`/api/v1/quickbooks/customers/mappings?local_id=${books.client.client_id}`)).json().data[0];
    fake.edit('5201', 'Customer', mapped.external_id, { DisplayName: 'Acme (edited in QBO)' });
    await admin.put(`/api/v1/clients/${books.client.client_id}`, { client_name: 'Acme Group' });
    const conflict = (await admin.post('/api/v1/quickbooks/customers/sync', { client_id: books.client.client_id })).json().data;
    expect(conflict).toMatchObject({ status: 'failed', records_failed: 1 });
    expect(conflict.outcomes[0].outcome).toBe('conflict');
    const forced = (await admin.post('/api/v1/quickbooks/customers/sync', { client_id: books.client.client_id, force_update: true })).json().data;
    expect(forced.outcomes[0].outcome).toBe('updated');
    expect(fake.get('5201', 'Customer', mapped.external_id)!.DisplayName).toBe('Acme Group');
  });

  it('bulk and full runs go to the worker (202), are polled, cancelled and retried', async () => {
    const { admin, tenant, books } = await ready('5202');
    await admin.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '7', is_default: true });
    await finalizedInvoice(admin, books);
    await finalizedInvoice(admin, books);
    const bulk = await admin.post('/api/v1/quickbooks/sync/bulk', { operations: [{ operation_type: 'customer_sync' }, { operation_type: 'invoice_export', parameters: { date_range: { start_date: '2026-10-01', end_date: '2026-10-31' } } }] });
    expect(bulk.statusCode, bulk.body).toBe(202);
    const b = bulk.json().data;
    expect(bulk.headers.location).toBe(`/api/v1/quickbooks/sync/status/${b.sync_id}`);
    expect(b).toMatchObject({ operation_type: 'bulk_sync', status: 'pending' });
    expect(b.operations.map((o: { operation_type: string; status: string }) => [o.operation_type, o.status])).toEqual([['customer_sync', 'pending'], ['invoice_export', 'pending']]);
    const status = (await admin.get('/api/v1/quickbooks/sync/status')).json().data;
    expect(status.running.map((r: { sync_id: string }) => r.sync_id)).toEqual([b.sync_id]);

    const worker = ledgerWorker(t, fake);
    expect(await worker.runOnce()).toBe(1);
    const done = (await admin.get(`/api/v1/quickbooks/sync/status/${b.sync_id}`)).json().data;
    expect(done).toMatchObject({ status: 'completed', records_successful: 3 });
    expect(done.operations.map((o: { status: string }) => o.status)).toEqual(['completed', 'completed']);
    expect(fake.list('5202', 'Invoice')).toHaveLength(2);
    expect((await eventsOf(t, tenant, b.sync_id)).map((e) => e.event_type)).toEqual(['ledger.sync.completed']);
    expectError(await admin.post(`/api/v1/quickbooks/sync/${b.sync_id}/cancel`), 409, 'CONFLICT');
    expectError(await admin.post(`/api/v1/quickbooks/sync/${b.sync_id}/retry`), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/quickbooks/sync/bulk', { operations: [{ operation_type: 'invoice_export', parameters: { nonsense: 1 } }] }), 400, 'VALIDATION_ERROR');

    // A full run, cancelled before the worker takes it, and retried.
    const full = (await admin.post('/api/v1/quickbooks/sync/full')).json().data;
    expect(full.operations.map((o: { operation_type: string }) => o.operation_type)).toEqual(['customer_sync', 'invoice_export', 'payment_sync']);
    const cancelled = (await admin.post(`/api/v1/quickbooks/sync/${full.sync_id}/cancel`)).json().data;
    expect(cancelled.status).toBe('cancelled');
    await worker.runOnce();
    expect((await admin.get(`/api/v1/quickbooks/sync/status/${full.sync_id}`)).json().data.operations.map((o: { status: string }) => o.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    const again = await admin.post(`/api/v1/quickbooks/sync/${full.sync_id}/retry`);
    expect(again.statusCode, again.body).toBe(202);
    await worker.runOnce();
    const retried = (await admin.get(`/api/v1/quickbooks/sync/status/${again.json().data.sync_id}`)).json().data;
    expect(retried).toMatchObject({ status: 'completed', attempt: 2 });
    expect(fake.list('5202', 'Invoice')).toHaveLength(2);
    const history = (await admin.get('/api/v1/quickbooks/sync/history?operation_type=full_sync')).json();
    expect(history.data.map((r: { status: string }) => r.status)).toEqual(['completed', 'cancelled']);
  });

  it("another tenant's runs and mappings are 404", async () => {
    const a = await ready('5203');
    const b = await ready('5204');
    const run = (await a.admin.post('/api/v1/quickbooks/customers/sync', {})).json().data;
    const mapping = (await a.admin.get('/api/v1/quickbooks/mappings')).json().data[0];
    expectError(await b.admin.get(`/api/v1/quickbooks/sync/status/${run.sync_id}`), 404, 'NOT_FOUND');
    expectError(await b.admin.post(`/api/v1/quickbooks/sync/${run.sync_id}/retry`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/quickbooks/mappings/${mapping.mapping_id}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(`/api/v1/quickbooks/mappings/${mapping.mapping_id}`), 404, 'NOT_FOUND');
    expect((await b.admin.get('/api/v1/quickbooks/mappings')).json().data.map((m: { mapping_id: string }) => m.mapping_id)).not.toContain(mapping.mapping_id);
    // Each tenant's calls go to its own company with its own token.
    fake.clear();
    await b.admin.get('/api/v1/quickbooks/accounts?refresh=true');
    await a.admin.get('/api/v1/quickbooks/accounts?refresh=true');
    const [first, second] = fake.received.filter((r) => r.path.includes('/query'));
    expect([first!.path, second!.path]).toEqual(['/v3/company/5204/query', '/v3/company/5203/query']);
    expect(first!.auth).not.toBe(second!.auth);
    expect((await b.admin.get('/api/v1/quickbooks/connection/status')).json().data.connections.map((c: { realm_id: string }) => c.realm_id)).toEqual(['5204']);
  });
});
