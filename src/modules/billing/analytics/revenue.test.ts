import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api, type TenantFixture } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import { bucketCount, bucketStart, buckets, firstOfMonthBefore } from './revenue.periods.ts';
import type { RevenueFigures, RevenueQuery } from './revenue.schemas.ts';
import { revenueReport } from './revenue.service.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const URL = '/api/v1/billing-analytics/revenue';

/** figures in the response's order: invoiced, collected, credited, outstanding, overdue, invoice count. */
const F = (invoiced: number, collected: number, credited: number, outstanding: number, overdue: number, count: number): RevenueFigures => ({
  invoiced_cents: invoiced, collected_cents: collected, credited_cents: credited, outstanding_cents: outstanding, overdue_cents: overdue, invoice_count: count,
});
const Z = F(0, 0, 0, 0, 0, 0);
const P = (period_start: string, period_end: string, f: RevenueFigures) => ({ period_start, period_end, ...f });

function actorOf(f: TenantFixture, clientId: string | null = null): Actor {
  return {
    tenant: f.tenant, tenantSlug: f.slug, userId: f.adminUserId, apiKeyId: randomId(),
    userType: clientId === null ? 'internal' : 'client', clientId, contactId: null, permissions: new Set(['billing:read']), scopes: null,
  };
}

/** Invoices, payments and credit notes through the API, as the invoice tests make them. */
function billing(api: Api) {
  const ok = async (method: 'post', url: string, body: Record<string, unknown>, status = 200) => {
    const res = await api[method](url, body);
    expect(res.statusCode, `${url} ${res.body}`).toBe(status);
    return res.json().data;
  };
  return {
    /** A one-item untaxed invoice; finalized unless `draft`. */
    async invoice(clientId: string, o: { issue?: string; due?: string; cents: number; currency?: string; draft?: boolean }): Promise<string> {
      const inv = await ok('post', '/api/v1/invoices', {
        client_id: clientId,
        ...(o.issue ? { issue_date: o.issue } : {}),
        ...(o.due ? { due_date: o.due } : {}),
        ...(o.currency ? { currency_code: o.currency } : {}),
        items: [{ description: 'Work', quantity: 1, unit_price_cents: o.cents, tax_rate_id: null }],
      }, 201);
      if (!o.draft) await ok('post', `/api/v1/invoices/${inv.invoice_id}/finalize`, {});
      return inv.invoice_id as string;
    },
    pay: (id: string, cents: number, date: string) => ok('post', `/api/v1/invoices/${id}/payments`, { amount_cents: cents, method: 'bank_transfer', payment_date: date }, 201),
    credit: (id: string, cents: number, date: string) => ok('post', `/api/v1/invoices/${id}/credit-notes`, { amount_cents: cents, reason: 'Goodwill', issue_date: date }, 201),
    send: (id: string) => ok('post', `/api/v1/invoices/${id}/send`, {}),
    void: (id: string) => ok('post', `/api/v1/invoices/${id}/void`, { reason: 'Duplicate' }),
  };
}

/**
 * Tenant A: client `a` (USD and EUR) and client `b` (USD), all dates in the past but two due dates (2099).
 * Today (2026 or later) is after every other due date.
 */
async function seeded() {
  const f = await makeTenant(t);
  const x = billing(f.admin);
  const a = (await makeClient(f.admin)).client_id;
  const b = (await makeClient(f.admin)).client_id;
  // 2023-12: paid in full on the 20th.
  const i0 = await x.invoice(a, { issue: '2023-12-01', due: '2023-12-31', cents: 800 });
  await x.pay(i0, 800, '2023-12-20');
  // 2024-01: I1 part-paid in February (balance 6000, overdue); I2 sent, part-paid in April (balance 2000, due 2099).
  const i1 = await x.invoice(a, { issue: '2024-01-15', due: '2024-02-14', cents: 10_000 });
  expect((await x.pay(i1, 4000, '2024-02-03')).invoice).toMatchObject({ status: 'partially_paid', balance_cents: 6000 });
  const i2 = await x.invoice(a, { issue: '2024-01-20', due: '2099-12-31', cents: 2500 });
  await x.send(i2);
  expect((await x.pay(i2, 500, '2024-04-05')).invoice).toMatchObject({ status: 'partially_paid', balance_cents: 2000 });
  // 2024-02: I3 over-paid in March (8000 for 7000: 1000 to client credit); a draft and a void one that never count.
  const i3 = await x.invoice(a, { issue: '2024-02-10', due: '2024-03-10', cents: 7000 });
  expect((await x.pay(i3, 8000, '2024-03-05')).payment).toMatchObject({ applied_cents: 7000, to_credit_cents: 1000 });
  await x.invoice(a, { issue: '2024-02-01', due: '2024-03-01', cents: 99_999, draft: true });
  const v = await x.invoice(a, { issue: '2024-02-15', due: '2024-03-15', cents: 5555 });
  expect((await x.void(v)).status).toBe('void');
  // 2024-02-29 (leap day), EUR: part-paid on 2024-03-01, balance 1000 overdue.
  const e1 = await x.invoice(a, { issue: '2024-02-29', due: '2024-03-30', cents: 1234, currency: 'EUR' });
  await x.pay(e1, 234, '2024-03-01');
  // 2024-03-31: I4 credited 1000 the same day (balance 2000, overdue); client b's invoice is due in 2099.
  const i4 = await x.invoice(a, { issue: '2024-03-31', due: '2024-04-30', cents: 3000 });
  expect((await x.credit(i4, 1000, '2024-03-31')).invoice.balance_cents).toBe(2000);
  await x.invoice(b, { issue: '2024-03-15', due: '2099-12-31', cents: 100_000 });
  return { f, a, b };
}

let A: Awaited<ReturnType<typeof seeded>>;
const get = async (query: string, api: Api = A.f.admin) => {
  const res = await api.get(`${URL}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('revenue buckets (pure)', () => {
  it('bucketStart is the calendar start of the month, quarter or year', () => {
    expect(bucketStart('2024-02-29', 'month')).toBe('2024-02-01');
    expect(bucketStart('2024-05-17', 'quarter')).toBe('2024-04-01');
    expect(bucketStart('2024-12-31', 'quarter')).toBe('2024-10-01');
    expect(bucketStart('2024-03-31', 'quarter')).toBe('2024-01-01');
    expect(bucketStart('2024-07-04', 'year')).toBe('2024-01-01');
    expect(bucketStart('0999-07-04', 'year')).toBe('0999-01-01');
  });

  it('bucketCount counts calendar buckets touched, the ends inclusive', () => {
    expect(bucketCount('2024-01-31', '2024-02-01', 'month')).toBe(2);
    expect(bucketCount('2024-01-01', '2024-01-31', 'month')).toBe(1);
    expect(bucketCount('2014-02-01', '2024-01-31', 'month')).toBe(120);
    expect(bucketCount('2014-01-31', '2024-01-01', 'month')).toBe(121);
    expect(bucketCount('2023-12-15', '2024-04-10', 'quarter')).toBe(3);
    expect(bucketCount('2023-12-31', '2024-01-01', 'year')).toBe(2);
  });

  it('buckets are calendar periods clipped to [from, to], leap years included', () => {
    expect(buckets('2024-01-15', '2024-03-10', 'month')).toEqual([
      { key: '2024-01-01', period_start: '2024-01-15', period_end: '2024-01-31' },
      { key: '2024-02-01', period_start: '2024-02-01', period_end: '2024-02-29' },
      { key: '2024-03-01', period_start: '2024-03-01', period_end: '2024-03-10' },
    ]);
    expect(buckets('2023-02-01', '2023-02-28', 'month')).toEqual([{ key: '2023-02-01', period_start: '2023-02-01', period_end: '2023-02-28' }]);
    expect(buckets('1900-02-10', '1900-03-01', 'month').map((b) => b.period_end)).toEqual(['1900-02-28', '1900-03-01']); // 1900: not leap
    expect(buckets('2000-02-10', '2000-02-29', 'month').map((b) => b.period_end)).toEqual(['2000-02-29']); // 2000: leap
    expect(buckets('2023-12-15', '2024-07-01', 'quarter')).toEqual([
      { key: '2023-10-01', period_start: '2023-12-15', period_end: '2023-12-31' },
      { key: '2024-01-01', period_start: '2024-01-01', period_end: '2024-03-31' },
      { key: '2024-04-01', period_start: '2024-04-01', period_end: '2024-06-30' },
      { key: '2024-07-01', period_start: '2024-07-01', period_end: '2024-07-01' },
    ]);
    expect(buckets('2023-06-01', '2025-01-01', 'year')).toEqual([
      { key: '2023-01-01', period_start: '2023-06-01', period_end: '2023-12-31' },
      { key: '2024-01-01', period_start: '2024-01-01', period_end: '2024-12-31' },
      { key: '2025-01-01', period_start: '2025-01-01', period_end: '2025-01-01' },
    ]);
    expect(buckets('2024-05-05', '2024-05-05', 'year')).toEqual([{ key: '2024-01-01', period_start: '2024-05-05', period_end: '2024-05-05' }]);
  });

  it('firstOfMonthBefore goes back whole months across years', () => {
    expect(firstOfMonthBefore('2026-11-24', 11)).toBe('2025-12-01');
    expect(firstOfMonthBefore('2024-03-31', 11)).toBe('2023-04-01');
    expect(firstOfMonthBefore('2024-12-01', 11)).toBe('2024-01-01');
    expect(firstOfMonthBefore('2024-01-15', 0)).toBe('2024-01-01');
  });
});

describe(`GET ${URL} (${engine})`, () => {
  beforeAll(async () => { A = await seeded(); });

  const usdMonths = [
    P('2024-01-01', '2024-01-31', F(12_500, 0, 0, 8000, 6000, 2)), // I1 10000 + I2 2500; balances 6000 + 2000, I1's overdue
    P('2024-02-01', '2024-02-29', F(7000, 4000, 0, 0, 0, 1)), // I3 (draft and void left out); I1's payment
    P('2024-03-01', '2024-03-31', F(103_000, 8000, 1000, 102_000, 2000, 2)), // I4 3000 + b's 100000; I3's over-payment; I4's credit note
  ];
  const usdTotals = F(122_500, 12_000, 1000, 110_000, 8000, 5);
  const eur = {
    currency_code: 'EUR',
    periods: [P('2024-01-01', '2024-01-31', Z), P('2024-02-01', '2024-02-29', F(1234, 0, 0, 1000, 1000, 1)), P('2024-03-01', '2024-03-31', F(0, 234, 0, 0, 0, 0))],
    totals: F(1234, 234, 0, 1000, 1000, 1),
  };

  it('months: invoices in their buckets, two currencies never mixed, drafts and voids left out, payments by payment_date', async () => {
    expect(await get('?from=2024-01-01&to=2024-03-31')).toEqual({
      from: '2024-01-01', to: '2024-03-31', interval: 'month',
      currencies: [eur, { currency_code: 'USD', periods: usdMonths, totals: usdTotals }],
    });
    expect(await get('?from=2024-01-01&to=2024-03-31&interval=month&currency_code=eur')).toMatchObject({ currencies: [eur] });
    expect((await get('?from=2024-01-01&to=2024-03-31&currency_code=USD')).currencies.map((c: { currency_code: string }) => c.currency_code)).toEqual(['USD']);
    expect(await get('?from=2024-01-01&to=2024-03-31&currency_code=GBP')).toMatchObject({ currencies: [] });
  });

  it('client_id narrows every figure to that client', async () => {
    expect((await get(`?from=2024-01-01&to=2024-03-31&client_id=${A.a}`)).currencies).toEqual([
      eur,
      {
        currency_code: 'USD',
        periods: [usdMonths[0], usdMonths[1], P('2024-03-01', '2024-03-31', F(3000, 8000, 1000, 2000, 2000, 1))],
        totals: F(22_500, 12_000, 1000, 10_000, 8000, 4),
      },
    ]);
    expect((await get(`?from=2024-01-01&to=2024-03-31&client_id=${A.b}`)).currencies).toEqual([{
      currency_code: 'USD',
      periods: [P('2024-01-01', '2024-01-31', Z), P('2024-02-01', '2024-02-29', Z), P('2024-03-01', '2024-03-31', F(100_000, 0, 0, 100_000, 0, 1))],
      totals: F(100_000, 0, 0, 100_000, 0, 1),
    }]);
  });

  it('quarters and years are calendar buckets clipped to [from, to]', async () => {
    // From 2023-12-15: I0 (issued 2023-12-01) is out, its payment (2023-12-20) is in; I2's April payment is in Q2.
    expect(await get('?from=2023-12-15&to=2024-04-10&interval=quarter')).toEqual({
      from: '2023-12-15', to: '2024-04-10', interval: 'quarter',
      currencies: [
        {
          currency_code: 'EUR',
          periods: [P('2023-12-15', '2023-12-31', Z), P('2024-01-01', '2024-03-31', F(1234, 234, 0, 1000, 1000, 1)), P('2024-04-01', '2024-04-10', Z)],
          totals: F(1234, 234, 0, 1000, 1000, 1),
        },
        {
          currency_code: 'USD',
          periods: [
            P('2023-12-15', '2023-12-31', F(0, 800, 0, 0, 0, 0)),
            P('2024-01-01', '2024-03-31', usdTotals),
            P('2024-04-01', '2024-04-10', F(0, 500, 0, 0, 0, 0)),
          ],
          totals: F(122_500, 13_300, 1000, 110_000, 8000, 5),
        },
      ],
    });
    expect(await get('?from=2023-06-01&to=2024-02-29&interval=year')).toEqual({
      from: '2023-06-01', to: '2024-02-29', interval: 'year',
      currencies: [
        { currency_code: 'EUR', periods: [P('2023-06-01', '2023-12-31', Z), P('2024-01-01', '2024-02-29', F(1234, 0, 0, 1000, 1000, 1))], totals: F(1234, 0, 0, 1000, 1000, 1) },
        {
          currency_code: 'USD',
          periods: [P('2023-06-01', '2023-12-31', F(800, 800, 0, 0, 0, 1)), P('2024-01-01', '2024-02-29', F(19_500, 4000, 0, 8000, 6000, 3))],
          totals: F(20_300, 4800, 0, 8000, 6000, 4),
        },
      ],
    });
    // A range without any figure lists no currency.
    expect(await get('?from=2025-01-01&to=2025-12-31&interval=quarter')).toEqual({ from: '2025-01-01', to: '2025-12-31', interval: 'quarter', currencies: [] });
  });

  it('overdue is a balance due before today (UTC): due today is not overdue yet', async () => {
    const q: RevenueQuery = { from: '2024-01-01', to: '2024-01-31', currency_code: 'USD' };
    const jan = async (today: string) => (await revenueReport(t.database.db, actorOf(A.f), q, today)).currencies[0]!.periods[0];
    expect(await jan('2024-02-14')).toMatchObject({ outstanding_cents: 8000, overdue_cents: 0 }); // I1 is due 2024-02-14
    expect(await jan('2024-02-15')).toMatchObject({ outstanding_cents: 8000, overdue_cents: 6000 });
  });

  it('the default range is the 12 calendar months up to today (UTC)', async () => {
    const report = await revenueReport(t.database.db, actorOf(A.f), {}, '2024-03-15');
    expect(report).toMatchObject({ from: '2023-04-01', to: '2024-03-15', interval: 'month' });
    const usd = report.currencies.find((c) => c.currency_code === 'USD')!;
    expect(usd.periods).toHaveLength(12);
    expect(usd.periods[0]).toEqual(P('2023-04-01', '2023-04-30', Z));
    expect(usd.periods[8]).toEqual(P('2023-12-01', '2023-12-31', F(800, 800, 0, 0, 0, 1)));
    expect(usd.periods[11]).toEqual(P('2024-03-01', '2024-03-15', F(100_000, 8000, 0, 100_000, 0, 1))); // I4 and its credit note are after the 15th
    expect((await revenueReport(t.database.db, actorOf(A.f), { to: '2024-02-29', interval: 'quarter' }, '2030-01-01')).from).toBe('2023-03-01');

    // Over HTTP, today: a fresh tenant's invoice issued today is in the last of 12 buckets.
    const f = await makeTenant(t);
    const client = (await makeClient(f.admin)).client_id;
    await billing(f.admin).invoice(client, { cents: 4200 });
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
    const data = await get('', f.admin);
    expect(data).toMatchObject({ from, to: today, interval: 'month' });
    expect(data.currencies).toHaveLength(1);
    const periods = data.currencies[0].periods;
    expect(periods).toHaveLength(12);
    expect(periods[0].period_start).toBe(from);
    expect(periods[11]).toEqual(P(`${today.slice(0, 8)}01`, today, F(4200, 0, 0, 4200, 0, 1)));
    expect(periods.slice(0, 11).every((p: RevenueFigures) => p.invoice_count === 0 && p.invoiced_cents === 0)).toBe(true);
    expect(data.currencies[0].totals).toEqual(F(4200, 0, 0, 4200, 0, 1));
    // `from` alone runs to today.
    expect(await get(`?from=${today}`, f.admin)).toMatchObject({ from: today, to: today, currencies: [{ totals: F(4200, 0, 0, 4200, 0, 1) }] });
  });

  it('400s name the field: from after to, too many buckets, bad interval, unknown field, bad currency or date', async () => {
    const bad = async (query: string, path: string, message?: RegExp) => {
      const res = await A.f.admin.get(`${URL}${query}`);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details[0].path, query).toBe(path);
      if (message) expect(res.json().error.details[0].message).toMatch(message);
    };
    await bad('?from=2024-02-01&to=2024-01-31', 'querystring.from', /^must not be after to$/);
    await bad('?from=2030-01-01', 'querystring.from'); // `to` defaults to today
    await bad('?from=2014-01-31&to=2024-01-01', 'querystring.from', /121 month buckets; at most 120/);
    await bad('?from=1993-12-31&to=2023-12-31&interval=quarter', 'querystring.from', /121 quarter buckets; at most 120/);
    await bad('?from=1904-12-31&to=2024-01-01&interval=year', 'querystring.from', /at most 120/);
    await bad('?interval=week', 'querystring.interval');
    await bad('?currency=USD', 'querystring.currency');
    await bad('?currency_code=XYZ', 'querystring.currency_code');
    await bad('?currency_code=US', 'querystring.currency_code');
    await bad('?to=2024-02-30', 'querystring.to');
    await bad('?client_id=nope', 'querystring.client_id');
    // Exactly 120 buckets is allowed.
    expect((await get('?from=2014-02-01&to=2024-01-31')).currencies[0].periods).toHaveLength(120);
    expect((await get('?from=1994-01-01&to=2023-12-31&interval=quarter')).currencies[0].periods).toHaveLength(120);
    expect((await get('?from=1905-01-01&to=2024-12-31&interval=year')).currencies[0].periods).toHaveLength(120);
  });

  it('a client-portal key sees only its own client; another client is a 404', async () => {
    const { f, a, b } = A;
    const role = unique('Portal billing');
    const created = await f.admin.post('/api/v1/roles', { role_name: role, is_client_portal: true, permissions: ['invoice:read'] });
    expect(created.statusCode, created.body).toBe(201);
    // The roles API keeps billing:read away from portal roles; granted directly, the scoping still holds.
    await t.database.db.insertInto('role_permissions').values({ tenant: f.tenant, role_id: created.json().data.role_id, permission: 'billing:read' }).execute();
    const portal = (await makeUser(t, f.tenant, { role, userType: 'client', clientId: a })).api;
    const mine = await get('?from=2024-01-01&to=2024-03-31', portal);
    expect(mine).toEqual(await get(`?from=2024-01-01&to=2024-03-31&client_id=${a}`));
    expect(mine.currencies[1].totals).toEqual(F(22_500, 12_000, 1000, 10_000, 8000, 4));
    expect(await get(`?from=2024-01-01&to=2024-03-31&client_id=${a}`, portal)).toEqual(mine);
    expectError(await portal.get(`${URL}?client_id=${b}`), 404, 'NOT_FOUND');
  });

  it('401 without a key, 403 for a Technician, Finance and Manager may read; tenants are isolated', async () => {
    const { f, a } = A;
    expectError(await anonymous(t).get(URL), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, f.tenant, { role: 'Technician' })).api.get(URL), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, f.tenant, { role: 'Finance' })).api;
    expect((await get('?from=2024-01-01&to=2024-03-31', finance)).currencies).toHaveLength(2);
    const manager = (await makeUser(t, f.tenant, { role: 'Manager' })).api;
    expect((await get('?from=2024-01-01&to=2024-03-31', manager)).currencies).toHaveLength(2);
    expectError(await f.admin.get(`${URL}?client_id=${randomId()}`), 404, 'NOT_FOUND');

    const other = await makeTenant(t);
    expectError(await other.admin.get(`${URL}?client_id=${a}`), 404, 'NOT_FOUND');
    expect(await get('?from=2023-01-01&to=2024-12-31', other.admin)).toEqual({ from: '2023-01-01', to: '2024-12-31', interval: 'month', currencies: [] });
  });
});
