import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, type Api, type Res } from '../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectError, makeClient, tombstone } from '../../../test/client-factories.ts';
import { search } from '../../../test/search-kit.ts';
import type { MergeContext } from '../clients/index.ts';
import { billingMergeParticipant } from './billing.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const OCT = { period_start: '2026-10-01', period_end: '2026-10-31' };
const NOV = { period_start: '2026-11-01', period_end: '2026-11-30' };

async function ok(res: Promise<Res>, status = 201): Promise<Record<string, unknown>> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json().data as Record<string, unknown>;
}

interface Setup {
  tenant: string;
  admin: Api;
  rateId: string;
  storage: string;
  fixedLine: string;
}

/** A tenant with a tax rate, a usage service and a fixed line of 1,000.00 a month. */
async function setup(): Promise<Setup> {
  const { tenant, admin } = await makeTenant(t);
  const rateId = (await ok(admin.post('/api/v1/tax-rates', { name: 'Sales tax', percentage: 10 }))).tax_rate_id as string;
  const type = (await admin.get('/api/v1/service-types')).json().data[0].service_type_id as string;
  const storage = (await ok(admin.post('/api/v1/services', { custom_service_type_id: type, service_name: 'Backup storage', billing_method: 'usage', unit_of_measure: 'GB', default_rate: 25 }))).service_id as string;
  const fixedLine = (await ok(admin.post('/api/v1/contract-lines', { contract_line_name: 'Managed desktops', contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 100000 } }))).contract_line_id as string;
  return { tenant, admin, rateId, storage, fixedLine };
}

/** An active contract from 2026-01-01 with the fixed line; returns its id and its assignment's. */
async function contract(s: Setup, clientId: string, body: Record<string, unknown> = {}): Promise<{ contract_id: string; client_contract_id: string }> {
  const c = await ok(s.admin.post('/api/v1/contracts', { client_id: clientId, contract_name: 'Managed services', start_date: '2026-01-01', status: 'active', ...body }));
  await ok(s.admin.post(`/api/v1/contracts/${c.contract_id as string}/contract-lines`, { contract_line_id: s.fixedLine }));
  return { contract_id: c.contract_id as string, client_contract_id: (c.client_contract as { client_contract_id: string }).client_contract_id };
}

/** October's generated invoice of a client, finalized. */
async function octoberInvoice(s: Setup, clientId: string, finalize = true): Promise<Record<string, unknown>> {
  const res = await ok(s.admin.post('/api/v1/invoices/generate', { client_id: clientId, ...OCT, issue_date: '2026-11-01' }));
  const inv = (res.invoices as { invoice_id: string }[])[0]!;
  if (!finalize) return inv;
  return ok(s.admin.post(`/api/v1/invoices/${inv.invoice_id}/finalize`), 200);
}

const ctxOf = (tenant: string, sourceId: string, targetId: string, profileIds: string[], cutoverDate = '2026-11-01'): MergeContext =>
  ({ tenant, sourceId, targetId, cutoverDate, profileIds, actorUserId: null });

const rowsOf = async (table: 'contracts' | 'client_contracts' | 'invoices' | 'invoice_payments' | 'credit_notes' | 'client_credit_entries' | 'quotes' | 'usage_records', tenant: string, clientId: string) =>
  Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).where('client_id', '=', clientId).executeTakeFirstOrThrow()).n);

const searchIds = async (api: Api, query: string, types: string) => (await search(api, { query, types })).results.map((r) => r.id);

describe('billing in a client merge', () => {
  it('moves every billing record of the source to the target: counts equal the move, invoices unchanged, credit follows, the assignment starts at the cutover, events, search', async () => {
    const s = await setup();
    const source = await makeClient(s.admin, { client_name: 'Quokka Dental', payment_terms: 'Net 15' });
    const target = await makeClient(s.admin, { client_name: 'Zanzibar Holdings' });
    const other = await makeClient(s.admin, { client_name: 'Wombat Legal' });
    const sourceProfile = await defaultProfileId(s.admin, source.client_id);
    await ok(s.admin.put(`/api/v1/clients/${source.client_id}/tax-settings`, { default_tax_rate_id: s.rateId }), 200);

    const c = await contract(s, source.client_id);
    const otherContract = await contract(s, other.client_id);
    const inv = await octoberInvoice(s, source.client_id);
    const invoiceId = inv.invoice_id as string;
    expect(inv).toMatchObject({ client_id: source.client_id, client_name: 'Quokka Dental', status: 'finalized', total_cents: 110000 });
    const otherInvoice = await octoberInvoice(s, other.client_id);
    // Paid with 50.00 too much (client credit), then a credit note of 20.00 on the paid invoice (client credit too).
    await ok(s.admin.post(`/api/v1/invoices/${invoiceId}/payments`, { amount_cents: 115000, method: 'bank_transfer', payment_date: '2026-11-10' }));
    await ok(s.admin.post(`/api/v1/invoices/${invoiceId}/credit-notes`, { amount_cents: 2000, reason: 'Goodwill' }));
    const note = await ok(s.admin.post(`/api/v1/invoices/${invoiceId}/annotations`, { content: 'Called about the renewal' }));
    await ok(s.admin.post('/api/v1/quotes', { client_id: source.client_id, title: 'Firewall refresh', items: [{ description: 'Firewall', quantity: 1, unit_price_cents: 50000 }] }));
    await ok(s.admin.post('/api/v1/usage-records', { client_id: source.client_id, service_id: s.storage, quantity: 10, usage_date: '2026-10-05' }));
    await ok(s.admin.post('/api/v1/usage-records', { client_id: source.client_id, service_id: s.storage, quantity: 5, usage_date: '2026-11-05' }));
    await ok(s.admin.post('/api/v1/usage-records', { client_id: other.client_id, service_id: s.storage, quantity: 1, usage_date: '2026-11-05' }));
    const before = await ok(s.admin.get(`/api/v1/invoices/${invoiceId}`), 200);
    expect(await searchIds(s.admin, 'Zanzibar', 'invoice')).toEqual([]);

    const p = billingMergeParticipant();
    expect(p.name).toBe('billing');
    const ctx = ctxOf(s.tenant, source.client_id, target.client_id, [sourceProfile]);
    const { counted, moved } = await t.database.db.transaction().execute(async (trx) => {
      const counted = await p.count(trx, ctx);
      const moved = await p.move(trx, ctx);
      // What the clients area does in the same transaction: the source's profiles move with their ids.
      await trx.updateTable('client_billing_profiles').set({ client_id: target.client_id, is_default: false })
        .where('tenant', '=', s.tenant).where('billing_profile_id', '=', sourceProfile).execute();
      return { counted, moved };
    });
    expect(counted).toEqual({
      contracts: 1, client_contracts: 1, invoices: 1, payments: 1, credit_notes: 1, client_credit_entries: 2, quotes: 1, usage_records: 2, tax_settings: 1,
    });
    expect(moved).toEqual(counted);
    // Nothing is left naming the source.
    for (const table of ['contracts', 'client_contracts', 'invoices', 'invoice_payments', 'credit_notes', 'client_credit_entries', 'quotes', 'usage_records'] as const) {
      expect(await rowsOf(table, s.tenant, source.client_id), table).toBe(0);
    }
    expect(await p.count(t.database.db, ctx)).toEqual({
      contracts: 0, client_contracts: 0, invoices: 0, payments: 0, credit_notes: 0, client_credit_entries: 0, quotes: 0, usage_records: 0, tax_settings: 0,
    });

    // The invoice: the target's, same number, amounts, status and billing profile.
    const after = await ok(s.admin.get(`/api/v1/invoices/${invoiceId}`), 200);
    expect(after).toMatchObject({ client_id: target.client_id, client_name: 'Zanzibar Holdings' });
    for (const k of ['invoice_number', 'status', 'billing_profile_id', 'subtotal_cents', 'tax_cents', 'total_cents', 'amount_paid_cents', 'credited_cents', 'balance_cents', 'period_start', 'period_end'] as const) {
      expect(after[k], k).toEqual(before[k]);
    }
    expect(after).toMatchObject({ status: 'paid', amount_paid_cents: 110000, balance_cents: 0 });
    // The credit (over-payment + credit note) is the target's now.
    expect(await ok(s.admin.get(`/api/v1/clients/${target.client_id}/credit`), 200)).toEqual([
      { billing_profile_id: sourceProfile, billing_profile_name: expect.any(String), currency_code: 'USD', balance_cents: 7000 },
    ]);
    expect(await ok(s.admin.get(`/api/v1/clients/${source.client_id}/credit`), 200)).toEqual([]);
    // Tax settings moved (the target had none).
    expect(await ok(s.admin.get(`/api/v1/clients/${target.client_id}/tax-settings`), 200)).toMatchObject({ default_tax_rate_id: s.rateId });

    // The assignment bills under the target from the cutover; the contract keeps its dates.
    const contractNow = await ok(s.admin.get(`/api/v1/contracts/${c.contract_id}`), 200);
    expect(contractNow).toMatchObject({ client_id: target.client_id, start_date: '2026-01-01', client_contract: { start_date: '2026-11-01', billing_profile_id: sourceProfile } });

    // Events, through the bulk emitter.
    const merged = { client_id: target.client_id, previous_client_id: source.client_id, merge: true };
    expect((await eventsOf(t, s.tenant, invoiceId)).at(-1)).toEqual({
      event_type: 'invoice.updated', aggregate_type: 'invoice', aggregate_id: invoiceId, payload: { invoice_id: invoiceId, changed_fields: ['client_id'], ...merged },
    });
    expect((await eventsOf(t, s.tenant, c.contract_id)).at(-1)!.payload).toEqual({ contract_id: c.contract_id, changed_fields: ['client_id'], ...merged });
    expect((await eventsOf(t, s.tenant, c.client_contract_id)).at(-1)).toEqual({
      event_type: 'client_contract.updated', aggregate_type: 'client_contract', aggregate_id: c.client_contract_id,
      payload: {
        client_contract_id: c.client_contract_id, contract_id: c.contract_id, changed_fields: ['client_id', 'start_date'], ...merged,
        start_date: '2026-11-01', previous_start_date: '2026-01-01',
      },
    });
    const mergeEvents = await t.database.db.selectFrom('events').select(['event_type', 'payload']).where('tenant', '=', s.tenant)
      .where('event_type', 'like', '%.updated').execute();
    const types = mergeEvents.filter((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload).merge === true).map((e) => e.event_type).sort();
    expect(types).toEqual(['client_contract.updated', 'client_tax_settings.updated', 'contract.updated', 'invoice.updated', 'quote.updated', 'usage_record.updated', 'usage_record.updated']);

    // Search: the invoice, its items and its note show the target's name.
    expect(await searchIds(s.admin, 'Zanzibar', 'invoice')).toEqual([invoiceId]);
    expect(await searchIds(s.admin, 'Quokka', 'invoice,invoice_item,invoice_annotation,contract')).toEqual([]);
    // The assignment's subtitle names the client, then its billing profile (which keeps the source's name).
    expect((await search(s.admin, { query: 'Zanzibar', types: 'client_contract' })).results.map((r) => r.subtitle)).toEqual([expect.stringMatching(/^Zanzibar Holdings \| Quokka Dental/)]);
    const items = (after.items as { item_id: string }[]).map((i) => i.item_id);
    expect((await searchIds(s.admin, 'Zanzibar', 'invoice_item,invoice_annotation')).sort()).toEqual([...items, note.annotation_id as string].sort());
    expect((await searchIds(s.admin, 'Zanzibar', 'contract,client_contract')).sort()).toEqual([c.contract_id, c.client_contract_id].sort());

    // Other clients are untouched.
    expect(await ok(s.admin.get(`/api/v1/invoices/${otherInvoice.invoice_id as string}`), 200)).toMatchObject({ client_id: other.client_id, client_name: 'Wombat Legal' });
    expect(await ok(s.admin.get(`/api/v1/contracts/${otherContract.contract_id}`), 200)).toMatchObject({ client_id: other.client_id, client_contract: { start_date: '2026-01-01' } });
    expect(await rowsOf('usage_records', s.tenant, other.client_id)).toBe(1);
    expect(await eventsOf(t, s.tenant, otherInvoice.invoice_id as string)).not.toContainEqual(expect.objectContaining({ event_type: 'invoice.updated' }));

    // With the source tombstoned, November bills the moved assignment under the target, from the cutover.
    await tombstone(t, s.tenant, source.client_id, target.client_id);
    const nov = await ok(s.admin.post('/api/v1/invoices/generate', { ...NOV, issue_date: '2026-12-01' }));
    expect((nov.invoices as { client_id: string; billing_profile_id: string; subtotal_cents: number }[]).map((i) => [i.client_id, i.billing_profile_id, i.subtotal_cents]).sort()).toEqual([
      [other.client_id, await defaultProfileId(s.admin, other.client_id), 100000],
      [target.client_id, sourceProfile, 100000],
    ].sort());
  });

  it('tax settings stay with a target that has its own; the source row remains on the tombstone', async () => {
    const s = await setup();
    const source = await makeClient(s.admin);
    const target = await makeClient(s.admin);
    await ok(s.admin.put(`/api/v1/clients/${source.client_id}/tax-settings`, { default_tax_rate_id: s.rateId }), 200);
    await ok(s.admin.put(`/api/v1/clients/${target.client_id}/tax-settings`, { is_tax_exempt: true }), 200);
    const p = billingMergeParticipant();
    const ctx = ctxOf(s.tenant, source.client_id, target.client_id, [await defaultProfileId(s.admin, source.client_id)]);
    const { counted, moved } = await t.database.db.transaction().execute(async (trx) => ({ counted: await p.count(trx, ctx), moved: await p.move(trx, ctx) }));
    expect(counted).toEqual({ contracts: 0, client_contracts: 0, invoices: 0, payments: 0, credit_notes: 0, client_credit_entries: 0, quotes: 0, usage_records: 0, tax_settings: 0 });
    expect(moved).toEqual(counted);
    expect(await ok(s.admin.get(`/api/v1/clients/${target.client_id}/tax-settings`), 200)).toMatchObject({ is_tax_exempt: true, default_tax_rate_id: null });
    const rows = await t.database.db.selectFrom('client_tax_settings').select(['client_id', 'default_tax_rate_id']).where('tenant', '=', s.tenant).orderBy('client_id').execute();
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.client_id === source.client_id)).toMatchObject({ default_tax_rate_id: s.rateId });
  });

  it('assignments: one ended before the cutover and one starting after it keep their dates', async () => {
    const s = await setup();
    const source = await makeClient(s.admin);
    const target = await makeClient(s.admin);
    const ended = await contract(s, source.client_id, { start_date: '2026-01-01', end_date: '2026-06-30' });
    const later = await contract(s, source.client_id, { start_date: '2026-12-01' });
    const p = billingMergeParticipant();
    const ctx = ctxOf(s.tenant, source.client_id, target.client_id, []);
    expect((await p.blockers!(t.database.db, ctx)).map((b) => b.details.contract_id)).toEqual([later.contract_id]);
    const moved = await t.database.db.transaction().execute((trx) => p.move(trx, ctx));
    expect(moved).toMatchObject({ contracts: 2, client_contracts: 2 });
    expect(await ok(s.admin.get(`/api/v1/contracts/${ended.contract_id}`), 200)).toMatchObject({ client_contract: { start_date: '2026-01-01', end_date: '2026-06-30' } });
    expect(await ok(s.admin.get(`/api/v1/contracts/${later.contract_id}`), 200)).toMatchObject({ client_contract: { start_date: '2026-12-01' } });
    expect((await eventsOf(t, s.tenant, ended.client_contract_id)).at(-1)!.payload).toMatchObject({ changed_fields: ['client_id'], merge: true });
  });

  it('blockers: a cutover inside an invoiced period, a contract starting after the cutover; none for a clean cutover', async () => {
    const s = await setup();
    const source = await makeClient(s.admin, { client_name: 'Quokka Dental' });
    const target = await makeClient(s.admin);
    const profile = await defaultProfileId(s.admin, source.client_id);
    await contract(s, source.client_id);
    const inv = await octoberInvoice(s, source.client_id);
    const p = billingMergeParticipant();

    expect(await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile]))).toEqual([]);

    const inside = await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile], '2026-10-15'));
    expect(inside).toEqual([{
      code: 'invalid_cutover_date',
      message: expect.stringContaining(`invoice ${inv.invoice_number as string}`),
      details: { invoice_id: inv.invoice_id, invoice_number: inv.invoice_number, period_start: '2026-10-01', period_end: '2026-10-31', cutover_date: '2026-10-15' },
    }]);
    expect(inside[0]!.message).toMatch(/^The cutover date 2026-10-15 falls inside the period 2026-10-01 – 2026-10-31 already invoiced on invoice .+ twice.+\.$/);
    // The period's bounds are inside it too.
    expect(await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile], '2026-10-31'))).toHaveLength(1);
    expect(await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile], '2026-10-01'))).toHaveLength(1);
    // A voided invoice no longer blocks.
    await ok(s.admin.post(`/api/v1/invoices/${inv.invoice_id as string}/void`, { reason: 'Wrong period' }), 200);
    expect(await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile], '2026-10-15'))).toEqual([]);

    const future = await ok(s.admin.post('/api/v1/contracts', { client_id: source.client_id, contract_name: 'Next year', start_date: '2027-01-01' }));
    const ahead = await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile]));
    expect(ahead).toEqual([{
      code: 'invalid_cutover_date',
      message: "The cutover date 2026-11-01 precedes the start of contract 'Next year' (2027-01-01): choose a cutover on or after 2027-01-01.",
      details: { contract_id: future.contract_id, contract_name: 'Next year', start_date: '2027-01-01', cutover_date: '2026-11-01' },
    }]);
    expect(await p.blockers!(t.database.db, ctxOf(s.tenant, source.client_id, target.client_id, [profile], '2027-01-01'))).toEqual([]);
  });

  it('invoice generation skips a merged client and its assignments', async () => {
    const s = await setup();
    const merged = await makeClient(s.admin);
    const target = await makeClient(s.admin);
    const profile = await defaultProfileId(s.admin, merged.client_id);
    await contract(s, merged.client_id);
    await contract(s, target.client_id);
    await tombstone(t, s.tenant, merged.client_id, target.client_id);

    const all = await ok(s.admin.post('/api/v1/invoices/generate', { ...NOV, dry_run: true }), 200);
    expect((all.invoices as { client_id: string }[]).map((i) => i.client_id)).toEqual([target.client_id]);
    // Targeted at the tombstone: a write is refused, a dry run and the profile find nothing to bill.
    expectError(await s.admin.post('/api/v1/invoices/generate', { ...NOV, client_id: merged.client_id }), 409, 'CONFLICT');
    const dry = await ok(s.admin.post('/api/v1/invoices/generate', { ...NOV, client_id: merged.client_id, dry_run: true }), 200);
    expect(dry.invoices).toEqual([]);
    const byProfile = await ok(s.admin.post('/api/v1/invoices/generate', { ...NOV, billing_profile_id: profile }), 201);
    expect(byProfile.invoices).toEqual([]);
    expect(byProfile.skipped).toEqual([expect.objectContaining({ billing_profile_id: profile, reason: 'nothing_to_bill' })]);
    const real = await ok(s.admin.post('/api/v1/invoices/generate', { ...NOV }));
    expect((real.invoices as { client_id: string }[]).map((i) => i.client_id)).toEqual([target.client_id]);
  });
});
