import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, defaultProfileId, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import type { BillingFrequency, ContractLineType, ContractStatus } from '../../../platform/db/schema.billing.ts';
import { newId } from '../../../platform/ids.ts';
import { createBillingAnalyticsService, type BillingAnalyticsService } from './analytics.service.ts';
import type { Overview } from './analytics.schemas.ts';

let t: TestApp;
let service: BillingAnalyticsService;
beforeAll(async () => {
  t = await buildTestApp();
  service = createBillingAnalyticsService({ db: t.database.db });
});
afterAll(async () => t.close());

const URL = '/api/v1/billing-analytics/overview';

/** An internal (or, with clientId, a client-portal) actor of the tenant, for calling the service directly. */
function actorOf(f: TenantFixture, clientId: string | null = null): Actor {
  return {
    tenant: f.tenant,
    tenantSlug: f.slug,
    userId: f.adminUserId,
    apiKeyId: randomId(),
    userType: clientId === null ? 'internal' : 'client',
    clientId,
    contactId: null,
    permissions: new Set(['billing:read']),
    scopes: null,
  };
}

/** Builds contracts, lines and attachments by inserting rows directly (the contract API is not needed). */
function fixture(f: TenantFixture) {
  const db = t.database.db;
  return {
    async client(): Promise<{ clientId: string; profileId: string }> {
      const client = await makeClient(f.admin);
      return { clientId: client.client_id, profileId: await defaultProfileId(f.admin, client.client_id) };
    },
    /** A contract and its one assignment to the client's default billing profile. */
    async contract(
      c: { clientId: string; profileId: string },
      o: { name: string; status: ContractStatus; currency: string; start?: string; end?: string | null; assignmentActive?: boolean },
    ): Promise<string> {
      const contractId = newId();
      const start = o.start ?? '2026-01-01';
      const end = o.end ?? null;
      await db.insertInto('contracts').values({
        tenant: f.tenant, contract_id: contractId, client_id: c.clientId, contract_name: o.name, contract_description: null,
        start_date: start, end_date: end, billing_frequency: 'monthly', status: o.status, currency_code: o.currency,
      }).execute();
      await db.insertInto('client_contracts').values({
        tenant: f.tenant, client_contract_id: newId(), contract_id: contractId, client_id: c.clientId, billing_profile_id: c.profileId,
        start_date: start, end_date: end, is_active: o.assignmentActive ?? true,
      }).execute();
      return contractId;
    },
    async line(o: { name: string; type?: ContractLineType; frequency: BillingFrequency; currency: string; base?: number; active?: boolean }): Promise<string> {
      const lineId = newId();
      const type = o.type ?? 'fixed';
      const config = type === 'fixed' ? { base_rate_cents: o.base ?? 0 } : type === 'hourly' ? { hourly_rate_cents: 15000 } : type === 'usage' ? { unit_rate_cents: 25 } : { hours: 10, overage_rate_cents: 9000 };
      await db.insertInto('contract_lines').values({
        tenant: f.tenant, contract_line_id: lineId, contract_line_name: o.name, description: null, contract_line_type: type,
        billing_frequency: o.frequency, currency_code: o.currency, config: JSON.stringify(config), is_active: o.active ?? true,
      }).execute();
      return lineId;
    },
    async attach(contractId: string, lineId: string, customRateCents: number | null = null, displayOrder = 0): Promise<void> {
      await db.insertInto('contract_line_attachments').values({
        tenant: f.tenant, contract_id: contractId, contract_line_id: lineId, custom_rate_cents: customRateCents, display_order: displayOrder,
      }).execute();
    },
  };
}

const ZERO_STATUS = { draft: 0, active: 0, terminated: 0, expired: 0 };
const ZERO_TYPES = { fixed: 0, hourly: 0, usage: 0, bucket: 0 };
const ZERO_FREQ = { weekly: 0, 'bi-weekly': 0, monthly: 0, quarterly: 0, 'semi-annually': 0, annually: 0 };

/** The overview without its clock, for exact comparison. */
function stable(o: Overview): Omit<Overview, 'generated_at'> {
  expect(new Date(o.generated_at).toISOString()).toBe(o.generated_at);
  const { generated_at: _ignored, ...rest } = o;
  return rest;
}

/** Tenant A of the hand-computed fixture, with the expected figures. */
async function handComputed() {
  const f = await makeTenant(t);
  const x = fixture(f);
  const client = await x.client();
  const c1 = await x.contract(client, { name: 'C1 USD active', status: 'active', currency: 'USD' });
  const c2 = await x.contract(client, { name: 'C2 EUR active', status: 'active', currency: 'EUR' });
  const c3 = await x.contract(client, { name: 'C3 USD draft', status: 'draft', currency: 'USD' });
  const c4 = await x.contract(client, { name: 'C4 USD terminated', status: 'terminated', currency: 'USD', end: '2026-06-30' });
  // Active, but its assignment is inactive: its revenue counts, its assignment does not.
  const c6 = await x.contract(client, { name: 'C6 USD active', status: 'active', currency: 'USD', assignmentActive: false });
  await x.contract(client, { name: 'C7 USD expired', status: 'expired', currency: 'USD', start: '2025-01-01', end: '2025-12-31' });

  const ids = {
    uW: await x.line({ name: 'U weekly', frequency: 'weekly', currency: 'USD', base: 1000 }),
    uBw: await x.line({ name: 'U bi-weekly', frequency: 'bi-weekly', currency: 'USD', base: 1000 }),
    uM: await x.line({ name: 'U monthly', frequency: 'monthly', currency: 'USD', base: 2500 }),
    uQ: await x.line({ name: 'U quarterly', frequency: 'quarterly', currency: 'USD', base: 999 }),
    uSa: await x.line({ name: 'U semi-annually', frequency: 'semi-annually', currency: 'USD', base: 12339 }),
    uA: await x.line({ name: 'U annually', frequency: 'annually', currency: 'USD', base: 120000 }),
    uInactive: await x.line({ name: 'U inactive', frequency: 'monthly', currency: 'USD', base: 500000, active: false }),
    uHourly: await x.line({ name: 'U hourly', type: 'hourly', frequency: 'weekly', currency: 'USD' }),
    uUsage: await x.line({ name: 'U usage', type: 'usage', frequency: 'monthly', currency: 'USD' }),
    uBucket: await x.line({ name: 'U bucket', type: 'bucket', frequency: 'quarterly', currency: 'USD' }),
    uDraftOnly: await x.line({ name: 'U draft only', frequency: 'annually', currency: 'USD', base: 777 }),
    uUnattached: await x.line({ name: 'U unattached', frequency: 'monthly', currency: 'USD', base: 99999 }),
    e1: await x.line({ name: 'E1 bi-weekly', frequency: 'bi-weekly', currency: 'EUR', base: 100 }),
    e2: await x.line({ name: 'E2 bi-weekly', frequency: 'bi-weekly', currency: 'EUR', base: 100 }),
    e3: await x.line({ name: 'E3 quarterly', frequency: 'quarterly', currency: 'EUR', base: 3 }),
    e4: await x.line({ name: 'E4 semi-annually', frequency: 'semi-annually', currency: 'EUR', base: 1 }),
    e5: await x.line({ name: 'E5 annually zero', frequency: 'annually', currency: 'EUR', base: 0 }),
  };
  for (const line of [ids.uW, ids.uM, ids.uQ, ids.uSa, ids.uA, ids.uInactive, ids.uHourly, ids.uUsage, ids.uBucket]) await x.attach(c1, line);
  await x.attach(c1, ids.uBw, 1500); // the custom rate overrides the line's 1000
  await x.attach(c6, ids.uM); // a second revenue row for the monthly line
  await x.attach(c3, ids.uM); // draft: counted as a line, no revenue
  await x.attach(c3, ids.uDraftOnly); // draft: a line only a draft contract uses
  await x.attach(c4, ids.uW, 50000); // terminated: no revenue
  for (const line of [ids.e1, ids.e2, ids.e3, ids.e4, ids.e5]) await x.attach(c2, line);
  return { f, client, ids };
}

describe('billing analytics overview (service)', () => {
  it('computes every figure from the rows: hand-computed fixture in USD and EUR', async () => {
    const { f, ids } = await handComputed();
    const overview = await service.overview(actorOf(f), {});
    expect(stable(overview)).toEqual({
      filters: { client_id: null, from: null, to: null },
      total_contracts: 6, // C1, C2, C3, C4, C6, C7
      contracts_by_status: { draft: 1, active: 3, terminated: 1, expired: 1 },
      active_assignments: 2, // C1, C2 (C6's assignment is inactive; C3 is a draft)
      // Distinct attached lines: 11 USD (not 'U unattached') + 5 EUR = 16
      total_contract_lines: 16,
      // fixed: uW uBw uM uQ uSa uA uInactive uDraftOnly e1 e2 e3 e4 e5 = 13
      lines_by_type: { fixed: 13, hourly: 1, usage: 1, bucket: 1 },
      billing_frequency_distribution: {
        weekly: 2, // uW, uHourly
        'bi-weekly': 3, // uBw, e1, e2
        monthly: 3, // uM, uInactive, uUsage
        quarterly: 3, // uQ, uBucket, e3
        'semi-annually': 2, // uSa, e4
        annually: 3, // uA, uDraftOnly, e5
      },
      monthly_recurring_revenue: [
        // EUR Σ rate×k = 100×26 + 100×26 + 3×4 + 1×2 + 0×1 = 5214; 5214/12 = 434.5 → 434 (half to even, over the SUM;
        // per line it would be 217 + 217 + 1 + 0 + 0 = 435, and half-up would give 435)
        { currency_code: 'EUR', amount_cents: 434 },
        // USD Σ rate×k = 1000×52 + 1500×26 + 2500×12×2 + 999×4 + 12339×2 + 120000×1
        //             = 52000 + 39000 + 60000 + 3996 + 24678 + 120000 = 299674; 299674/12 = 24972.83… → 24973
        { currency_code: 'USD', amount_cents: 24973 },
      ],
      average_revenue_per_line: [
        { currency_code: 'EUR', amount_cents: 87, line_count: 5 }, // 5214 / (12×5) = 86.9 → 87
        { currency_code: 'USD', amount_cents: 3568, line_count: 7 }, // 299674 / (12×7) = 3567.55 → 3568 (uM has 2 rows)
      ],
      top_lines: [
        { contract_line_id: ids.uA, contract_line_name: 'U annually', contract_line_type: 'fixed', billing_frequency: 'annually', currency_code: 'USD', contract_count: 1, monthly_amount_cents: 10000 }, // 120000/12
        { contract_line_id: ids.uM, contract_line_name: 'U monthly', contract_line_type: 'fixed', billing_frequency: 'monthly', currency_code: 'USD', contract_count: 2, monthly_amount_cents: 5000 }, // 2×2500×12/12
        { contract_line_id: ids.uW, contract_line_name: 'U weekly', contract_line_type: 'fixed', billing_frequency: 'weekly', currency_code: 'USD', contract_count: 1, monthly_amount_cents: 4333 }, // 52000/12 = 4333.33…
        { contract_line_id: ids.uBw, contract_line_name: 'U bi-weekly', contract_line_type: 'fixed', billing_frequency: 'bi-weekly', currency_code: 'USD', contract_count: 1, monthly_amount_cents: 3250 }, // custom 1500×26/12
        { contract_line_id: ids.uSa, contract_line_name: 'U semi-annually', contract_line_type: 'fixed', billing_frequency: 'semi-annually', currency_code: 'USD', contract_count: 1, monthly_amount_cents: 2056 }, // 24678/12 = 2056.5 → 2056 (even)
        { contract_line_id: ids.uQ, contract_line_name: 'U quarterly', contract_line_type: 'fixed', billing_frequency: 'quarterly', currency_code: 'USD', contract_count: 1, monthly_amount_cents: 333 }, // 3996/12
        { contract_line_id: ids.e1, contract_line_name: 'E1 bi-weekly', contract_line_type: 'fixed', billing_frequency: 'bi-weekly', currency_code: 'EUR', contract_count: 1, monthly_amount_cents: 217 }, // 2600/12 = 216.67; tie with E2, name first
        { contract_line_id: ids.e2, contract_line_name: 'E2 bi-weekly', contract_line_type: 'fixed', billing_frequency: 'bi-weekly', currency_code: 'EUR', contract_count: 1, monthly_amount_cents: 217 },
        { contract_line_id: ids.e3, contract_line_name: 'E3 quarterly', contract_line_type: 'fixed', billing_frequency: 'quarterly', currency_code: 'EUR', contract_count: 1, monthly_amount_cents: 1 }, // 12/12
        { contract_line_id: ids.e4, contract_line_name: 'E4 semi-annually', contract_line_type: 'fixed', billing_frequency: 'semi-annually', currency_code: 'EUR', contract_count: 1, monthly_amount_cents: 0 }, // 2/12 = 0.17; 'E5 annually zero' (0) is the 11th: cut
      ],
    });
  });

  it('filters by client and by the [from, to] window (bounds inclusive; open-ended contracts never end)', async () => {
    const f = await makeTenant(t);
    const x = fixture(f);
    const a = await x.client();
    const b = await x.client();
    const ca1 = await x.contract(a, { name: 'A old', status: 'active', currency: 'USD', start: '2025-01-01', end: '2025-06-30' });
    const ca2 = await x.contract(a, { name: 'A open', status: 'active', currency: 'USD', start: '2026-01-01', end: null });
    const cb1 = await x.contract(b, { name: 'B 2026', status: 'active', currency: 'USD', start: '2026-03-01', end: '2026-12-31' });
    const l1 = await x.line({ name: 'Monthly 1200', frequency: 'monthly', currency: 'USD', base: 1200 });
    const l2 = await x.line({ name: 'Annual 2400', frequency: 'annually', currency: 'USD', base: 2400 });
    await x.attach(ca1, l1);
    await x.attach(ca2, l1);
    await x.attach(cb1, l2);
    const run = async (query: Parameters<BillingAnalyticsService['overview']>[1]) => {
      const o = await service.overview(actorOf(f), query);
      return { total: o.total_contracts, lines: o.total_contract_lines, mrr: o.monthly_recurring_revenue, filters: o.filters };
    };
    const usd = (amount_cents: number) => [{ currency_code: 'USD', amount_cents }];

    // All: l1 2 rows (1200×12×2 = 28800) + l2 (2400) = 31200 / 12 = 2600
    expect(await run({})).toEqual({ total: 3, lines: 2, mrr: usd(2600), filters: { client_id: null, from: null, to: null } });
    expect(await run({ client_id: a.clientId })).toEqual({ total: 2, lines: 1, mrr: usd(2400), filters: { client_id: a.clientId, from: null, to: null } });
    expect(await run({ client_id: b.clientId })).toEqual({ total: 1, lines: 1, mrr: usd(200), filters: { client_id: b.clientId, from: null, to: null } });
    // 'A old' ended 2025-06-30, before from: out. (1200×12 + 2400) / 12 = 1400
    expect(await run({ from: '2026-01-01' })).toEqual({ total: 2, lines: 2, mrr: usd(1400), filters: { client_id: null, from: '2026-01-01', to: null } });
    expect(await run({ from: '2025-06-30' })).toMatchObject({ total: 3, mrr: usd(2600) }); // end_date = from is still in
    expect(await run({ from: '2025-07-01' })).toMatchObject({ total: 2, mrr: usd(1400) });
    // 'B 2026' starts 2026-03-01, after to: out.
    expect(await run({ to: '2026-02-28' })).toMatchObject({ total: 2, lines: 1, mrr: usd(2400) });
    expect(await run({ to: '2026-03-01' })).toMatchObject({ total: 3, mrr: usd(2600) }); // start_date = to is in
    expect(await run({ to: '2024-12-31' })).toEqual({ total: 0, lines: 0, mrr: [], filters: { client_id: null, from: null, to: '2024-12-31' } });
    expect(await run({ from: '2026-01-01', to: '2026-02-28' })).toMatchObject({ total: 1, lines: 1, mrr: usd(1200) }); // 'A open' only
    expect(await run({ client_id: b.clientId, from: '2026-01-01', to: '2026-02-28' })).toMatchObject({ total: 0, lines: 0, mrr: [] });
    expect(await run({ from: '2027-01-01' })).toMatchObject({ total: 1, mrr: usd(1200) }); // only the open-ended one runs on
    expect(await run({ from: '2026-05-05', to: '2026-05-05' })).toMatchObject({ total: 2, mrr: usd(1400) }); // a one-day window

    // A client-portal actor is always scoped to its own client, and another client is a 404.
    const portal = actorOf(f, a.clientId);
    expect((await service.overview(portal, {})).filters.client_id).toBe(a.clientId);
    expect((await service.overview(portal, {})).total_contracts).toBe(2);
    await expect(service.overview(portal, { client_id: b.clientId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('an empty tenant is all zeros with empty lists', async () => {
    const f = await makeTenant(t);
    expect(stable(await service.overview(actorOf(f), {}))).toEqual({
      filters: { client_id: null, from: null, to: null },
      total_contracts: 0,
      contracts_by_status: ZERO_STATUS,
      active_assignments: 0,
      total_contract_lines: 0,
      lines_by_type: ZERO_TYPES,
      billing_frequency_distribution: ZERO_FREQ,
      monthly_recurring_revenue: [],
      average_revenue_per_line: [],
      top_lines: [],
    });
  });

  it('another tenant sees none of the figures; a foreign client is a 404; from after to is a 400', async () => {
    const { f, client } = await handComputed();
    const other = await makeTenant(t);
    const theirs = await service.overview(actorOf(other), {});
    expect(theirs).toMatchObject({ total_contracts: 0, total_contract_lines: 0, active_assignments: 0, monthly_recurring_revenue: [], top_lines: [] });
    await expect(service.overview(actorOf(other), { client_id: client.clientId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.overview(actorOf(f), { from: '2026-02-01', to: '2026-01-31' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('GET /api/v1/billing-analytics/overview (HTTP)', () => {
  it('returns the { data } envelope to an admin and to Finance, with the same figures as the service', async () => {
    const { f, client } = await handComputed();
    const res = await f.admin.get(URL);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { data: Overview };
    expect(stable(body.data)).toEqual(stable(await service.overview(actorOf(f), {})));
    expect(body.data.monthly_recurring_revenue).toEqual([{ currency_code: 'EUR', amount_cents: 434 }, { currency_code: 'USD', amount_cents: 24973 }]);
    const finance = await makeUser(t, f.tenant, { role: 'Finance' });
    const filtered = await finance.api.get(`${URL}?client_id=${client.clientId}&from=2026-01-01&to=2026-12-31`);
    expect(filtered.statusCode, filtered.body).toBe(200);
    // C7 (expired in 2025) is outside the window
    expect(filtered.json().data).toMatchObject({ filters: { client_id: client.clientId, from: '2026-01-01', to: '2026-12-31' }, total_contracts: 5 });
    const manager = await makeUser(t, f.tenant, { role: 'Manager' });
    expect((await manager.api.get(URL)).statusCode).toBe(200);
  });

  it('400 bad queries, 401 without a key, 403 without billing:read, 404 foreign client; tenants are isolated', async () => {
    const { f, client } = await handComputed();
    expectError(await f.admin.get(`${URL}?client_id=nope`), 400, 'VALIDATION_ERROR');
    expectError(await f.admin.get(`${URL}?from=2026-13-01`), 400, 'VALIDATION_ERROR');
    expectError(await f.admin.get(`${URL}?to=2026-02-30`), 400, 'VALIDATION_ERROR');
    const order = await f.admin.get(`${URL}?from=2026-02-01&to=2026-01-31`);
    expectError(order, 400, 'VALIDATION_ERROR');
    expect(order.json().error.details).toEqual([{ path: 'querystring.from', message: 'must not be after to' }]);
    const unknown = await f.admin.get(`${URL}?currency=USD`);
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.json().error.details[0].path).toBe('querystring.currency');
    expectError(await anonymous(t).get(URL), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, f.tenant, { role: 'Technician' });
    expectError(await tech.api.get(URL), 403, 'FORBIDDEN');
    expectError(await f.admin.get(`${URL}?client_id=${randomId()}`), 404, 'NOT_FOUND');

    const other = await makeTenant(t);
    expectError(await other.admin.get(`${URL}?client_id=${client.clientId}`), 404, 'NOT_FOUND');
    const theirs = await other.admin.get(URL);
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(stable(theirs.json().data)).toEqual({
      filters: { client_id: null, from: null, to: null },
      total_contracts: 0,
      contracts_by_status: ZERO_STATUS,
      active_assignments: 0,
      total_contract_lines: 0,
      lines_by_type: ZERO_TYPES,
      billing_frequency_distribution: ZERO_FREQ,
      monthly_recurring_revenue: [],
      average_revenue_per_line: [],
      top_lines: [],
    });
    // The first tenant still sees its own figures.
    expect((await f.admin.get(URL)).json().data.total_contracts).toBe(6);
  });
});
