import { expect } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { SecretBox } from '../src/platform/crypto/secret-box.ts';
import { JobRunner } from '../src/platform/jobs/runner.ts';
import { FakeMailer } from './automation-engine-kit.ts';
import { ledgerModule } from '../src/modules/ledger/index.ts';
import type { Api } from './factories.ts';
import { unique } from './factories.ts';
import { makeClient } from './client-factories.ts';
import { startFakeQuickBooks, type FakeQuickBooks } from './fakes/qbo-server.ts';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from './harness.ts';

const quiet = { info: () => undefined, error: () => undefined };

/** The environment that points the ledger at the local QuickBooks wire-format server. */
export const ledgerEnv = (fake: FakeQuickBooks) => ({
  PSA_QBO_CLIENT_ID: fake.clientId,
  PSA_QBO_CLIENT_SECRET: fake.clientSecret,
  PSA_QBO_BASE_URL: fake.url,
  PSA_QBO_RETRY_BASE_MS: '1',
});

/** A local QuickBooks server and an app configured for it (a suite's beforeAll); stop both with stopLedgerApp. */
export async function startLedgerApp(): Promise<{ fake: FakeQuickBooks; t: TestApp }> {
  const fake = await startFakeQuickBooks();
  return { fake, t: await buildLedgerApp(fake) };
}

export async function stopLedgerApp(t: TestApp, fake: FakeQuickBooks): Promise<void> {
  await t.close();
  await fake.close();
}

export const buildLedgerApp = (fake: FakeQuickBooks, opts: { database?: TestApp['database']; env?: Record<string, string> } = {}) =>
  buildTestApp({ database: opts.database, env: { ...ledgerEnv(fake), ...opts.env } });

/** The worker's part of the ledger (bulk and full runs), run by hand. */
export function ledgerWorker(t: TestApp, fake: FakeQuickBooks): JobRunner {
  const config = loadConfig({ PSA_SECRET_KEY: TEST_SECRET_KEY, ...ledgerEnv(fake) });
  const parts = ledgerModule.worker!({ db: t.database.db, database: t.database, config, secretBox: new SecretBox(Buffer.from(TEST_SECRET_KEY, 'base64url')), mailer: new FakeMailer(), log: quiet });
  return new JobRunner(t.database, [...(parts.jobs ?? [])], quiet);
}

/** What a browser sends when it follows the ledger's redirect. */
export const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/**
 * Connects the tenant of `api` to the fake's company the way a browser would: initiate, follow the
 * authorization URL (the fake consents and redirects), land on the GET callback. Returns the popup page.
 */
export async function connectLedger(t: TestApp, api: Api, fake: FakeQuickBooks, realmId = fake.realmId) {
  const init = await api.post('/api/v1/quickbooks/oauth/initiate', {});
  expect(init.statusCode, init.body).toBe(200);
  fake.consent.realmId = realmId;
  fake.consent.deny = false;
  const redirect = await fetch(init.json().data.authorization_url, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  const back = new URL(redirect.headers.get('location')!);
  const page = await t.app.inject({ method: 'GET', url: `/api/v1/quickbooks/oauth/callback${back.search}`, headers: BROWSER });
  expect(page.statusCode, page.body).toBe(200);
  return { page, back, state: init.json().data.state as string };
}

/** A catalogue service, a tax rate in region NY and a client, ready to invoice. */
export async function seedBooks(api: Api, clientName = unique('Acme')) {
  const type = (await api.get('/api/v1/service-types')).json().data[0].service_type_id;
  const service = (await api.post('/api/v1/services', { custom_service_type_id: type, service_name: unique('Managed endpoint'), billing_method: 'fixed', unit_of_measure: 'device', default_rate: 2500 })).json().data.service_id as string;
  const rate = (await api.post('/api/v1/tax-rates', { name: unique('NY'), region: 'NY', percentage: 8.875 })).json().data.tax_rate_id as string;
  const client = await makeClient(api, { client_name: clientName });
  return { service, rate, client };
}

/** A finalized invoice with a taxed catalogue line and an untaxed line without a service. */
export async function finalizedInvoice(api: Api, books: { service: string; rate: string; client: { client_id: string } }, issueDate = '2026-10-15') {
  const res = await api.post('/api/v1/invoices', {
    client_id: books.client.client_id,
    issue_date: issueDate,
    items: [{ service_id: books.service, quantity: 3, tax_rate_id: books.rate }, { description: 'Onsite visit', quantity: 1.5, unit_price_cents: 12_000, tax_rate_id: null }],
  });
  expect(res.statusCode, res.body).toBe(201);
  const fin = await api.post(`/api/v1/invoices/${res.json().data.invoice_id}/finalize`, {});
  expect(fin.statusCode, fin.body).toBe(200);
  return fin.json().data as { invoice_id: string; invoice_number: string; total_cents: number; updated_at: string };
}
