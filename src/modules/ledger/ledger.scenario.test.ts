import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { makeClient } from '../../../test/client-factories.ts';
import type { FakeQuickBooks } from '../../../test/fakes/qbo-server.ts';
import { connectLedger, seedBooks, startLedgerApp, stopLedgerApp } from '../../../test/ledger-kit.ts';
import type { TestApp } from '../../../test/harness.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

describe('a month with QuickBooks Online (the issue’s "done when")', () => {
  it('connects, maps, exports a month of invoices exactly once (a token lapsing mid-run), imports payments and reads health', async () => {
    const { tenant, admin } = await makeTenant(t);
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const realm = '7101';
    await connectLedger(t, finance, fake, realm);

    const income = (await finance.get('/api/v1/quickbooks/accounts?search=services')).json().data[0];
    expect((await finance.put('/api/v1/quickbooks/accounts/mappings', { mappings: [{ account_type: 'income', qbo_account_id: income.id, is_default: true }] })).statusCode).toBe(200);
    const tax = (await finance.get('/api/v1/quickbooks/tax-codes')).json().data.find((c: { name: string }) => c.name === 'TAX');
    expect((await finance.put('/api/v1/quickbooks/tax-codes/mappings', { mappings: [{ tax_region: 'NY', qbo_tax_code_id: tax.id }] })).statusCode).toBe(200);
    // The catalogue, tax rates and clients are the office's; the finance team invoices and runs the ledger.
    const books = await seedBooks(admin, 'Stark Industries');
    const clients = [books.client, await makeClient(admin, { client_name: 'Wayne Enterprises' }), await makeClient(admin, { client_name: 'Oscorp' })];
    const invoices: { invoice_id: string; total_cents: number }[] = [];
    for (let day = 1; day <= 12; day++) {
      const client = clients[day % 3]!;
      const draft = await finance.post('/api/v1/invoices', {
        client_id: client.client_id,
        issue_date: `2026-10-${String(day * 2).padStart(2, '0')}`,
        items: [{ service_id: books.service, quantity: day, tax_rate_id: books.rate }, { description: 'Project hours', quantity: 2.5, unit_price_cents: 15_000 + day, tax_rate_id: null }],
      });
      expect(draft.statusCode, draft.body).toBe(201);
      invoices.push((await finance.post(`/api/v1/invoices/${draft.json().data.invoice_id}/finalize`, {})).json().data);
    }
    // Lines without a catalogue service go to a default item.
    expect((await finance.post('/api/v1/quickbooks/mappings', { entity_type: 'item', local_id: books.service, external_id: '8', is_default: true })).statusCode).toBe(201);

    fake.expireAccessTokensAfter(6);
    const month = { date_range: { start_date: '2026-10-01', end_date: '2026-10-31' } };
    const run = (await finance.post('/api/v1/quickbooks/invoices/export', month)).json().data;
    expect(run).toMatchObject({ status: 'completed', records_processed: 12, records_successful: 12 });
    expect(fake.list(realm, 'Invoice')).toHaveLength(12);
    expect(fake.list(realm, 'Customer').map((c) => c.DisplayName).sort()).toEqual(['Oscorp', 'Stark Industries', 'Wayne Enterprises']);
    expect(fake.received.filter((r) => r.path === '/oauth2/v1/tokens/bearer').length).toBeGreaterThanOrEqual(2); // the code, then the refresh
    const again = (await finance.post('/api/v1/quickbooks/invoices/export', month)).json().data;
    expect(again).toMatchObject({ status: 'completed', records_skipped: 12, records_successful: 0 });
    expect(fake.list(realm, 'Invoice')).toHaveLength(12);

    // The client pays four invoices in QuickBooks.
    const remoteByOurs = new Map((await finance.get('/api/v1/quickbooks/mappings?entity_type=invoice&limit=100')).json().data.map((m: { local_id: string; external_id: string }) => [m.local_id, m.external_id]));
    for (const inv of invoices.slice(0, 4)) {
      const remote = fake.get(realm, 'Invoice', remoteByOurs.get(inv.invoice_id) as string)!;
      fake.seed(realm, 'Payment', {
        CustomerRef: remote.CustomerRef, TxnDate: '2026-10-30', CurrencyRef: { value: 'USD' }, TotalAmt: inv.total_cents / 100,
        Line: [{ Amount: inv.total_cents / 100, LinkedTxn: [{ TxnId: remote.Id, TxnType: 'Invoice' }] }],
      });
    }
    const paid = (await finance.post('/api/v1/quickbooks/payments/sync', {})).json().data;
    expect(paid).toMatchObject({ status: 'completed', records_successful: 4 });
    for (const inv of invoices.slice(0, 4)) expect((await finance.get(`/api/v1/invoices/${inv.invoice_id}`)).json().data).toMatchObject({ status: 'paid', balance_cents: 0 });
    expect((await finance.post('/api/v1/quickbooks/payments/sync', {})).json().data.records_successful).toBe(0);

    const health = (await finance.get('/api/v1/quickbooks/health')).json().data;
    expect(health).toMatchObject({ realm_id: realm, overall_status: 'healthy', connection_status: 'active' });
    expect(health.sync_statistics.successful_syncs_24h).toBe(4);
    expect(health.health_checks.map((c: { check_type: string; status: string }) => [c.check_type, c.status])).toEqual([
      ['connection', 'healthy'], ['authentication', 'healthy'], ['api_limits', 'healthy'], ['sync_status', 'healthy'], ['data_integrity', 'healthy'],
    ]);
    const history = (await finance.get('/api/v1/quickbooks/sync/history')).json();
    expect(history.data.map((r: { operation_type: string }) => r.operation_type)).toEqual(['payment_sync', 'payment_sync', 'invoice_export', 'invoice_export']);
  });
});
