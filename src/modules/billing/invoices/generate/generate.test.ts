import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type Res } from '../../../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectError, makeClient, randomId } from '../../../../../test/client-factories.ts';
import { newId } from '../../../../platform/ids.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const NOV = { period_start: '2026-11-01', period_end: '2026-11-30' };

interface Setup {
  tenant: string;
  admin: Api;
  adminUserId: string;
  rateId: string;
  storage: string;
  support: string;
}

async function ok(res: Promise<Res>, status = 201): Promise<Record<string, unknown>> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json().data as Record<string, unknown>;
}

/** A tenant with an 8.875 % tax rate, a usage service (GB) and an hourly service. */
async function setup(): Promise<Setup> {
  const { tenant, admin, adminUserId } = await makeTenant(t);
  const rateId = (await ok(admin.post('/api/v1/tax-rates', { name: 'NYC sales tax', percentage: 8.875 }))).tax_rate_id as string;
  const type = (await admin.get('/api/v1/service-types')).json().data[0].service_type_id as string;
  const svc = async (body: Record<string, unknown>) => (await ok(admin.post('/api/v1/services', { custom_service_type_id: type, ...body }))).service_id as string;
  return {
    tenant, admin, adminUserId, rateId,
    storage: await svc({ service_name: 'Backup storage', billing_method: 'usage', unit_of_measure: 'GB', default_rate: 25 }),
    support: await svc({ service_name: 'Remote support', billing_method: 'hourly', unit_of_measure: 'hour', default_rate: 12000 }),
  };
}

async function taxedClient(s: Setup, body: Record<string, unknown> = {}): Promise<string> {
  const client = await makeClient(s.admin, { payment_terms: 'Net 15', ...body });
  await ok(s.admin.put(`/api/v1/clients/${client.client_id}/tax-settings`, { default_tax_rate_id: s.rateId }), 200);
  return client.client_id;
}

async function line(s: Setup, type: string, config: Record<string, unknown>, body: Record<string, unknown> = {}, services: string[] = []): Promise<string> {
  const id = (await ok(s.admin.post('/api/v1/contract-lines', { contract_line_name: `${type} line`, contract_line_type: type, billing_frequency: 'monthly', config, ...body }))).contract_line_id as string;
  for (const service_id of services) await ok(s.admin.post(`/api/v1/contract-lines/${id}/services`, { service_id }));
  return id;
}

async function contract(s: Setup, clientId: string, lines: (string | { id: string; custom_rate_cents: number })[], body: Record<string, unknown> = {}): Promise<{ contract_id: string; client_contract_id: string }> {
  const c = await ok(s.admin.post('/api/v1/contracts', { client_id: clientId, start_date: '2026-01-01', status: 'active', ...body }));
  const contractId = c.contract_id as string;
  for (const l of lines) {
    const attach = typeof l === 'string' ? { contract_line_id: l } : { contract_line_id: l.id, custom_rate_cents: l.custom_rate_cents };
    await ok(s.admin.post(`/api/v1/contracts/${contractId}/contract-lines`, attach));
  }
  return { contract_id: contractId, client_contract_id: (c.client_contract as { client_contract_id: string }).client_contract_id };
}

async function usage(s: Setup, clientId: string, serviceId: string, quantity: number, usage_date: string): Promise<void> {
  await ok(s.admin.post('/api/v1/usage-records', { client_id: clientId, service_id: serviceId, quantity, usage_date }));
}

/** Hours against an hourly service, which bucket lines draw from. */
async function hours(s: Setup, clientId: string, quantity: number, usage_date: string): Promise<void> {
  await usage(s, clientId, s.support, quantity, usage_date);
}

const generate = (api: Api, body: Record<string, unknown>) => api.post('/api/v1/invoices/generate', body);

interface Invoice {
  invoice_id: string | null;
  client_id: string;
  billing_profile_id: string;
  currency_code: string;
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  due_date: string;
  items: { description: string; quantity: number; unit_price_cents: number; total_cents: number; tax_cents: number; contract_line_id: string; source: Record<string, unknown> }[];
}
interface Result { invoices: Invoice[]; skipped: { client_id: string; billing_profile_id: string; currency_code: string | null; reason: string; invoice_id: string | null; contract_line_id: string | null; message: string }[] }

async function run(api: Api, body: Record<string, unknown>, status = 201): Promise<Result> {
  return (await ok(generate(api, body), status)) as unknown as Result;
}

const count = async (table: 'invoices' | 'invoice_items', tenant: string): Promise<number> =>
  Number((await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

const eventCount = async (tenant: string): Promise<number> =>
  Number((await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).where('event_type', '=', 'invoice.created').executeTakeFirstOrThrow()).n);

function expectSums(inv: Invoice): void {
  expect(inv.subtotal_cents).toBe(inv.items.reduce((a, i) => a + i.total_cents, 0));
  expect(inv.tax_cents).toBe(inv.items.reduce((a, i) => a + i.tax_cents, 0));
  expect(inv.total_cents).toBe(inv.subtotal_cents + inv.tax_cents);
}

describe('POST /invoices/generate', () => {
  it('bills fixed, usage and bucket lines with the client default tax; hourly lines are skipped; rows, items with source and events', async () => {
    const s = await setup();
    const clientId = await taxedClient(s, { client_name: 'Acme' });
    const fixed = await line(s, 'fixed', { base_rate_cents: 150000 }, { contract_line_name: 'Managed desktops' });
    const storage = await line(s, 'usage', { unit_of_measure: 'GB', rate_cents: 25 }, { contract_line_name: 'Backup storage' }, [s.storage]);
    const bucket = await line(s, 'bucket', { total_minutes: 600, overage_rate_cents: 12000 }, { contract_line_name: 'Block of hours' }, [s.support]);
    const hourly = await line(s, 'hourly', { hourly_rate_cents: 12000 }, { contract_line_name: 'Helpdesk' });
    const c = await contract(s, clientId, [fixed, storage, bucket, hourly]);
    await usage(s, clientId, s.storage, 100.5, '2026-11-03');
    await usage(s, clientId, s.storage, 20, '2026-11-30');
    await usage(s, clientId, s.storage, 999, '2026-10-31'); // outside the period
    await hours(s, clientId, 6, '2026-11-10');
    await hours(s, clientId, 5.25, '2026-11-20'); // 11.25 h = 675 min: 75 over the 600 included

    const res = await run(s.admin, { client_id: clientId, ...NOV, issue_date: '2026-12-01' });
    expect(res.invoices).toHaveLength(1);
    const inv = res.invoices[0]!;
    const profileId = await defaultProfileId(s.admin, clientId);
    expect(inv).toMatchObject({
      client_id: clientId, client_name: 'Acme', billing_profile_id: profileId, currency_code: 'USD', period_start: '2026-11-01', period_end: '2026-11-30',
      issue_date: '2026-12-01', due_date: '2026-12-16', subtotal_cents: 168012, tax_cents: 14910, total_cents: 182922,
    });
    expect(inv.items.map((i) => [i.description, i.quantity, i.unit_price_cents, i.total_cents, i.tax_cents])).toEqual([
      ['Managed desktops (2026-11-01 – 2026-11-30)', 1, 150000, 150000, 13312],
      ['Backup storage: 120.5 GB', 120.5, 25, 3012, 267],
      ['Block of hours: 1.25 h beyond the 600 min included', 1.25, 12000, 15000, 1331],
    ]);
    expectSums(inv);
    expect(inv.items[0]).toMatchObject({ tax_rate_id: s.rateId, tax_percentage: 8.875, service_id: null, contract_id: c.contract_id, contract_line_id: fixed });
    expect(inv.items[1]).toMatchObject({ service_id: s.storage, source: { line_type: 'usage', client_contract_id: c.client_contract_id, used_quantity: 120.5, billed_quantity: 120.5, tier: null } });
    expect(inv.items[2]!.source).toEqual({
      line_type: 'bucket', client_contract_id: c.client_contract_id, period_start: '2026-11-01', period_end: '2026-11-30',
      included_minutes: 600, rollover_minutes: 0, used_minutes: 675, overage_minutes: 75, rate_cents: 12000,
    });
    expect(res.skipped).toEqual([{
      client_id: clientId, billing_profile_id: profileId, currency_code: 'USD', reason: 'nothing_to_bill', invoice_id: null, contract_line_id: hourly,
      message: expect.stringContaining('time entries'),
    }]);

    const row = await t.database.db.selectFrom('invoices').selectAll().where('tenant', '=', s.tenant).where('invoice_id', '=', inv.invoice_id!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'draft', invoice_number: null, is_generated: true, period_start: '2026-11-01', period_end: '2026-11-30', issue_date: '2026-12-01', due_date: '2026-12-16',
      currency_code: 'USD', subtotal_cents: 168012, tax_cents: 14910, total_cents: 182922, amount_paid_cents: 0, credited_cents: 0, balance_cents: 182922,
      created_by: s.adminUserId, client_id: clientId, billing_profile_id: profileId,
    });
    const items = await t.database.db.selectFrom('invoice_items').selectAll().where('tenant', '=', s.tenant).where('invoice_id', '=', inv.invoice_id!).orderBy('display_order').execute();
    expect(items.map((i) => [i.display_order, i.quantity_units, i.unit_price_cents, i.total_cents, i.tax_cents, i.tax_percentage_thousandths, i.tax_rate_id, i.contract_line_id, i.contract_id])).toEqual([
      [0, 10000, 150000, 150000, 13312, 8875, s.rateId, fixed, c.contract_id],
      [1, 1205000, 25, 3012, 267, 8875, s.rateId, storage, c.contract_id],
      [2, 12500, 12000, 15000, 1331, 8875, s.rateId, bucket, c.contract_id],
    ]);
    expect(items.map((i) => i.source)).toEqual(inv.items.map((i) => i.source));
    expect(items[0]!.source).toEqual({ line_type: 'fixed', client_contract_id: c.client_contract_id, period_start: '2026-11-01', period_end: '2026-11-30', rate_cents: 150000, prorated: false, active_days: 30, period_days: 30 });
    expect(await eventsOf(t, s.tenant, inv.invoice_id!)).toEqual([{
      event_type: 'invoice.created', aggregate_type: 'invoice', aggregate_id: inv.invoice_id,
      payload: { invoice_id: inv.invoice_id, client_id: clientId, billing_profile_id: profileId, currency_code: 'USD', total_cents: 182922, generated: true, period_start: '2026-11-01', period_end: '2026-11-30' },
    }]);
  });

  it('usage tiers and minimums; custom rates; an exempt client pays no tax; the tenant default terms apply', async () => {
    const s = await setup();
    const clientId = await taxedClient(s, { payment_terms: 'On agreement' });
    await ok(s.admin.put(`/api/v1/clients/${clientId}/tax-settings`, { is_tax_exempt: true }), 200);
    const tiered = await line(s, 'usage', { unit_of_measure: 'GB', rate_cents: 10, tiers: [{ min_quantity: 0, max_quantity: 100, rate_cents: 8 }, { min_quantity: 100, max_quantity: null, rate_cents: 5 }] }, { contract_line_name: 'Tiered' }, [s.storage]);
    const minimum = await line(s, 'usage', { unit_of_measure: 'seat', rate_cents: 500, minimum_usage: 10 }, { contract_line_name: 'Seats' });
    const fixed = await line(s, 'fixed', { base_rate_cents: 150000 }, { contract_line_name: 'Desk' });
    await contract(s, clientId, [tiered, minimum, { id: fixed, custom_rate_cents: 99000 }]);
    await usage(s, clientId, s.storage, 150, '2026-11-05');
    const inv = (await run(s.admin, { client_id: clientId, ...NOV, issue_date: '2026-12-01' })).invoices[0]!;
    expect(inv.items.map((i) => [i.description, i.total_cents, i.tax_cents])).toEqual([
      ['Tiered: 100 GB (tier 1)', 800, 0],
      ['Tiered: 50 GB (tier 2)', 250, 0],
      ['Seats: 10 seat', 5000, 0],
      ['Desk (2026-11-01 – 2026-11-30)', 99000, 0],
    ]);
    expect(inv).toMatchObject({ subtotal_cents: 105050, tax_cents: 0, total_cents: 105050, due_date: '2026-12-31' });
  });

  it('prorates a fixed line for an assignment starting mid-period (only when the line says so)', async () => {
    const s = await setup();
    const clientId = await taxedClient(s);
    const prorated = await line(s, 'fixed', { base_rate_cents: 1000, enable_proration: true }, { contract_line_name: 'Prorated' });
    const whole = await line(s, 'fixed', { base_rate_cents: 1000 }, { contract_line_name: 'Whole' });
    await contract(s, clientId, [prorated, whole], { start_date: '2026-11-16' });
    const inv = (await run(s.admin, { client_id: clientId, ...NOV })).invoices[0]!;
    expect(inv.items.map((i) => [i.description, i.unit_price_cents, i.source.prorated, i.source.active_days])).toEqual([
      ['Prorated (2026-11-16 – 2026-11-30)', 500, true, 15],
      ['Whole (2026-11-16 – 2026-11-30)', 1000, false, 15],
    ]);
    expect(inv).toMatchObject({ subtotal_cents: 1500, tax_cents: 133, total_cents: 1633, issue_date: new Date().toISOString().slice(0, 10) });
    expectSums(inv);
  });

  it('draft, terminated and ended contracts and inactive assignments are not billed', async () => {
    const s = await setup();
    const clientId = await taxedClient(s);
    const fixed = await line(s, 'fixed', { base_rate_cents: 1000 });
    await contract(s, clientId, [fixed], { status: 'draft' });
    const terminated = await contract(s, clientId, [fixed]);
    await ok(s.admin.put(`/api/v1/contracts/${terminated.contract_id}`, { status: 'terminated' }), 200);
    await contract(s, clientId, [fixed], { end_date: '2026-10-31' });
    await contract(s, clientId, [fixed], { start_date: '2026-12-01' });
    const paused = await contract(s, clientId, [fixed]);
    await t.database.db.updateTable('client_contracts').set({ is_active: false }).where('tenant', '=', s.tenant).where('client_contract_id', '=', paused.client_contract_id).execute();
    const res = await run(s.admin, { client_id: clientId, ...NOV });
    expect(res.invoices).toEqual([]);
    expect(res.skipped).toEqual([{
      client_id: clientId, billing_profile_id: await defaultProfileId(s.admin, clientId), currency_code: null, reason: 'nothing_to_bill', invoice_id: null, contract_line_id: null,
      message: expect.stringContaining('no active contract assignment'),
    }]);
    // An active contract whose lines bill nothing is reported as its group.
    const storage = await line(s, 'usage', { unit_of_measure: 'GB', rate_cents: 25 }, {}, [s.storage]);
    await contract(s, clientId, [storage]);
    expect((await run(s.admin, { client_id: clientId, ...NOV })).skipped).toMatchObject([{ currency_code: 'USD', reason: 'nothing_to_bill', contract_line_id: null }]);
    expect(await count('invoices', s.tenant)).toBe(0);
  });

  it('one draft per billing profile and per currency; a profile-targeted run bills only that profile', async () => {
    const s = await setup();
    const clientId = await taxedClient(s);
    const second = newId();
    await t.database.db.insertInto('client_billing_profiles').values({ tenant: s.tenant, billing_profile_id: second, client_id: clientId, name: 'Second site', is_default: false }).execute();
    const usd = await line(s, 'fixed', { base_rate_cents: 1000 });
    const eur = await line(s, 'fixed', { base_rate_cents: 2000 }, { currency_code: 'EUR' });
    await contract(s, clientId, [usd]);
    await contract(s, clientId, [usd], { billing_profile_id: second });
    await contract(s, clientId, [eur], { currency_code: 'EUR' });
    const first = await defaultProfileId(s.admin, clientId);

    const dry = await run(s.admin, { client_id: clientId, ...NOV, dry_run: true }, 200);
    expect(dry.invoices.map((i) => [i.billing_profile_id, i.currency_code, i.subtotal_cents]).sort()).toEqual([
      [first, 'EUR', 2000], [first, 'USD', 1000], [second, 'USD', 1000],
    ].sort());
    const only = (await run(s.admin, { billing_profile_id: second, ...NOV })).invoices;
    expect(only.map((i) => [i.billing_profile_id, i.currency_code])).toEqual([[second, 'USD']]);
    const clash = await generate(s.admin, { client_id: clientId, ...NOV });
    expectError(clash, 409, 'CONFLICT');
    expect(clash.json().error.message).toContain('billing profile Second site');
    const wide = await run(s.admin, NOV);
    expect(wide.invoices.map((i) => [i.billing_profile_id, i.currency_code, i.total_cents])).toEqual([[first, 'EUR', 2178], [first, 'USD', 1089]]);
    expect(wide.skipped.map((x) => [x.billing_profile_id, x.currency_code, x.reason, x.invoice_id])).toEqual([[second, 'USD', 'already_generated', only[0]!.invoice_id]]);
    expect(await count('invoices', s.tenant)).toBe(3);
    expect(await eventCount(s.tenant)).toBe(3);
  });

  it('dry_run writes nothing; a repeated or overlapping period is a 409 naming the invoice; the next period is fine', async () => {
    const s = await setup();
    const clientId = await taxedClient(s);
    await contract(s, clientId, [await line(s, 'fixed', { base_rate_cents: 1000 })]);
    const dry = await run(s.admin, { client_id: clientId, ...NOV, dry_run: true }, 200);
    expect(dry.invoices).toHaveLength(1);
    expect(dry.invoices[0]!.invoice_id).toBeNull();
    expect(dry.invoices[0]!.total_cents).toBe(1089);
    expect(await count('invoices', s.tenant)).toBe(0);
    expect(await count('invoice_items', s.tenant)).toBe(0);
    expect(await eventCount(s.tenant)).toBe(0);

    const made = (await run(s.admin, { client_id: clientId, ...NOV })).invoices[0]!;
    expect(made.total_cents).toBe(1089);
    for (const body of [
      { client_id: clientId, ...NOV },
      { client_id: clientId, ...NOV, dry_run: true },
      { client_id: clientId, period_start: '2026-11-15', period_end: '2026-12-14' },
      { billing_profile_id: made.billing_profile_id, period_start: '2026-10-01', period_end: '2026-11-01' },
    ]) {
      const r = await generate(s.admin, body);
      expectError(r, 409, 'CONFLICT');
      expect(r.json().error.message).toContain(`overlaps invoice draft (${made.invoice_id})`);
      expect(r.json().error.details).toEqual({ invoice_id: made.invoice_id });
    }
    expect(await count('invoices', s.tenant)).toBe(1);
    expect(await eventCount(s.tenant)).toBe(1);
    const dec = await run(s.admin, { client_id: clientId, period_start: '2026-12-01', period_end: '2026-12-31' });
    expect(dec.invoices).toHaveLength(1);
    // Voided invoices no longer hold their period.
    await t.database.db.updateTable('invoices').set({ status: 'void', invoice_number: 'INV-0001' }).where('tenant', '=', s.tenant).where('invoice_id', '=', made.invoice_id!).execute();
    expect((await run(s.admin, { client_id: clientId, ...NOV })).invoices).toHaveLength(1);
  });

  it('the tenant-wide run skips the group already generated and bills the others; groups without items are left out', async () => {
    const s = await setup();
    const other = await setup(); // another tenant: never billed here
    const fixed = await line(s, 'fixed', { base_rate_cents: 1000 });
    const a = await taxedClient(s, { client_name: 'Alpha' });
    const b = await taxedClient(s, { client_name: 'Beta' });
    const c = await taxedClient(s, { client_name: 'Gamma' });
    await contract(s, a, [fixed]);
    await contract(s, b, [fixed]);
    await contract(s, c, [await line(s, 'usage', { unit_of_measure: 'GB', rate_cents: 25 }, {}, [s.storage])]);
    await contract(other, await taxedClient(other), [await line(other, 'fixed', { base_rate_cents: 1000 })]);
    const first = (await run(s.admin, { client_id: a, ...NOV })).invoices[0]!;

    const res = await run(s.admin, NOV);
    expect(res.invoices.map((i) => i.client_id)).toEqual([b]);
    expect(res.skipped).toEqual([{
      client_id: a, billing_profile_id: first.billing_profile_id, currency_code: 'USD', reason: 'already_generated', invoice_id: first.invoice_id, contract_line_id: null,
      message: expect.stringContaining(first.invoice_id!),
    }]);
    expect(await count('invoices', s.tenant)).toBe(2);
    expect(await count('invoices', other.tenant)).toBe(0);
    const again = await run(s.admin, NOV);
    expect(again.invoices).toEqual([]);
    expect(again.skipped.map((x) => [x.client_id, x.reason])).toEqual([[a, 'already_generated'], [b, 'already_generated']]);
  });

  it("a bucket with rollover carries the previous period's unused minutes (capped) when the assignment covered that period", async () => {
    const s = await setup();
    const bucket = await line(s, 'bucket', { total_minutes: 600, overage_rate_cents: 12000, allow_rollover: true, rollover_cap_minutes: 120 }, { contract_line_name: 'Hours' }, [s.support]);
    const old = await taxedClient(s, { client_name: 'Old' });
    const fresh = await taxedClient(s, { client_name: 'Fresh' });
    await contract(s, old, [bucket]);
    await contract(s, fresh, [bucket], { start_date: '2026-10-15' });
    for (const id of [old, fresh]) {
      await hours(s, id, 5, '2026-10-20'); // previous period (2026-10-02 – 2026-10-31): 300 of 600 minutes unused
      await hours(s, id, 12.5, '2026-11-10'); // 750 minutes
    }
    const res = await run(s.admin, NOV);
    expect(res.invoices.map((i) => [i.client_id, i.items[0]!.quantity, i.items[0]!.source.rollover_minutes, i.total_cents])).toEqual([
      [fresh, 2.5, 0, 32662], // 150 min over 600: 2.5 h × 120.00 = 30000, tax 2662.5 → 2662 (half to even)
      [old, 0.5, 120, 6532], // 30 min over 600 + 120: 6000, tax 532.5 → 532
    ]);
  });

  it('concurrent tenant-wide runs bill a period once', async () => {
    const s = await setup();
    const fixed = await line(s, 'fixed', { base_rate_cents: 1000 });
    for (let i = 0; i < 3; i++) await contract(s, await taxedClient(s), [fixed]);
    const [x, y] = await Promise.all([run(s.admin, NOV), run(s.admin, NOV)]);
    expect([x.invoices.length, y.invoices.length].sort()).toEqual([0, 3]);
    expect([x.skipped.length, y.skipped.length].sort()).toEqual([0, 3]);
    expect(await count('invoices', s.tenant)).toBe(3);
  });

  it('bad bodies are a 400 naming the field; 403 without invoice:create', async () => {
    const s = await setup();
    const clientId = await taxedClient(s);
    const foreign = await makeClient((await makeTenant(t)).admin);
    for (const [body, field] of [
      [{ client_id: clientId, billing_profile_id: randomId(), ...NOV }, 'body.billing_profile_id'],
      [{ period_start: '2026-11-30', period_end: '2026-11-01' }, 'body.period_end'],
      [{ period_start: '2026-01-01', period_end: '2027-01-02' }, 'body.period_end'],
      [{ client_id: randomId(), ...NOV }, 'body.client_id'],
      [{ client_id: foreign.client_id, ...NOV }, 'body.client_id'],
      [{ billing_profile_id: randomId(), ...NOV }, 'body.billing_profile_id'],
      [{ billing_profile_id: await defaultProfileId(s.admin, clientId), period_start: '2026-11-31', period_end: '2026-12-01' }, 'body.period_start'],
      [{ period_start: '2026-11-01' }, 'body.period_end'],
      [{ ...NOV, invoice_date: '2026-11-01' }, 'body.invoice_date'],
    ] as const) {
      const r = await generate(s.admin, body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    expect((await generate(s.admin, { period_start: '2028-01-01', period_end: '2028-12-31', dry_run: true })).statusCode).toBe(200); // 366 days
    const tech = (await makeUser(t, s.tenant, { role: 'Technician' })).api;
    expectError(await generate(tech, NOV), 403, 'FORBIDDEN');
    const portal = (await makeUser(t, s.tenant, { role: 'Client Admin', userType: 'client', clientId })).api;
    expectError(await generate(portal, { client_id: clientId, ...NOV }), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, s.tenant, { role: 'Finance' })).api;
    expect((await generate(finance, { ...NOV, dry_run: true })).statusCode).toBe(200);
  });
});
