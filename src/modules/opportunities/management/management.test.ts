import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient } from '../../../../test/client-factories.ts';
import type { Checkpoint, Confidence, OpportunityType } from '../../../platform/db/schema.opportunities.ts';
import { newId } from '../../../platform/ids.ts';

/**
 * Forecast, calibration and rollups against a fixture whose every number is computed by hand below.
 *
 * Period: 2026-01-01 … 2026-03-31.
 *
 * Alice has 24 closed deals (≥ 20: calibrated), written directly with their close times and evidence:
 *   stage at close proposed   10 closed, 6 won → 0.6    (includes H, won in the period; and a lost deal whose
 *                                                        verbal evidence came after the loss: still proposed)
 *   stage at close qualified   8 closed, 2 won → 0.25   (includes one whose verbal evidence was corrected, and
 *                                                        one lost in the period: USD 4000 / 100)
 *   stage at close identified  3 closed, 0 won → 0      (calibrated zero)
 *   stage at close verbal      3 closed, 2 won → 2/3 = 0.6667
 *   assessment: none closed → base 0.35
 *   confidence: low 3/0 won, medium 16/6, high 3/2, committed 2/2.
 *   won new logos: H (client X: a contract starts 60 days after the win day → attached), P2 (client Y: contracts
 *   start before the win and 61 days after → not), P3 (client Z: a draft contract in the window → not): 1/3.
 * Bob has 5 closed deals (not calibrated: base rates): won 2026-03-31T23:59:59.999Z (in the period, USD 1500,
 * stage proposed), won 2026-04-01T00:00:00.000Z (out of the period, stage verbal), 3 lost in 2025 (identified).
 * An unowned GBP deal was lost in the period (800).
 *
 * Open deals (made through the API):
 *   A1 Alice proposed   USD mrr 33333 nrr 10001         × 3/5  → 19999.8 → 20000 | 6000.6 → 6001
 *   A2 Alice qualified  USD mrr 10002 nrr 10006         × 1/4  → 2500.5 → 2500 (even) | 2501.5 → 2502 (even)
 *   A3 Alice assessment USD mrr 10000 nrr 1             × 0.35 → 3500 | 0.35 → 0          (base)
 *   A4 Alice verbal     USD mrr 9000 nrr 300            × 2/3  → 6000 | 200   in the floor (full 9000 | 300)
 *   A5 Alice identified USD mrr 5000                    × 0    → 0 | 0
 *   B1 Bob proposed     USD mrr 20001 nrr 3             × 0.5  → 10000.5 → 10000 (even) | 1.5 → 2 (even)
 *   B2 Bob qualified    EUR mrr 7000                    × 0.15 → 1050 | 0
 *   B3 Bob verbal       EUR mrr 4000 nrr 1000 hw 500    × 0.8  → 3200 | 1200   in the floor (4000 | 1500)
 *   out: Alice USD closing 2026-04-01, Alice USD without expected close date.
 *
 * USD floor   mrr = H 10000 + A4 9000 + Bob 1500 = 20500; one-time = H 7500 + A4 300 + 0 = 7800
 * USD ceiling mrr = 20500 + 20000 + 2500 + 3500 + 0 + 10000 = 56500; one-time = 7800 + 6001 + 2502 + 0 + 0 + 2 = 16305
 * EUR floor 4000 | 1500; ceiling 4000 + 1050 = 5050 | 1500 + 0 = 1500.
 */

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const OPPS = '/api/v1/opportunities';
const PERIOD = 'start=2026-01-01&end=2026-03-31';

interface ClosedSpec {
  owner: string | null;
  status: 'won' | 'lost';
  at: string;
  client: string;
  confidence?: Confidence;
  type?: OpportunityType;
  currency?: string;
  mrr?: number;
  nrr?: number;
  hw?: number;
  evidence?: { checkpoint: Checkpoint; at: string; corrected?: boolean }[];
}

let seq = 0;
async function insertClosed(tenant: string, s: ClosedSpec): Promise<string> {
  const id = newId();
  const at = new Date(s.at);
  await t.database.db
    .insertInto('opportunities')
    .values({
      tenant, opportunity_id: id, opportunity_number: `H-${++seq}`, client_id: s.client, title: `History ${seq}`,
      opportunity_type: s.type ?? 'expansion', owner_id: s.owner, status: s.status, stage: s.status, stage_rank: 5,
      confidence: s.confidence ?? 'medium', mrr_cents: s.mrr ?? 1000, nrr_cents: s.nrr ?? 0, hardware_cents: s.hw ?? 0,
      currency_code: s.currency ?? 'USD', won_at: s.status === 'won' ? at : null, lost_at: s.status === 'lost' ? at : null,
      loss_reason: s.status === 'lost' ? 'price' : null, last_activity_at: at,
    })
    .execute();
  for (const e of s.evidence ?? []) {
    await t.database.db
      .insertInto('opportunity_evidence')
      .values({
        tenant, evidence_id: newId(), opportunity_id: id, checkpoint: e.checkpoint, source: 'declared', recorded_at: new Date(e.at),
        ...(e.corrected ? { corrected_at: new Date(e.at), correction_note: 'Mistaken' } : {}),
      })
      .execute();
  }
  return id;
}

async function makeOpen(api: Api, body: Record<string, unknown>, checkpoint?: Checkpoint): Promise<string> {
  const res = await api.post(OPPS, { title: 'Open deal', opportunity_type: 'expansion', currency_code: 'USD', next_action: 'Call', next_action_due: '2026-12-01T10:00:00.000Z', ...body });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.opportunity_id as string;
  if (checkpoint) {
    const declared = await api.post(`${OPPS}/${id}/evidence`, { checkpoint });
    expect(declared.statusCode, declared.body).toBe(201);
    expect(declared.json().data.stage).toBe(checkpoint);
  }
  return id;
}

async function namedUser(tenant: string, first: string, last: string) {
  const u = await makeUser(t, tenant, { role: 'Manager' });
  await t.database.db.updateTable('users').set({ first_name: first, last_name: last }).where('tenant', '=', tenant).where('user_id', '=', u.userId).execute();
  return u;
}

async function contract(api: Api, clientId: string, start: string, status: 'active' | 'draft') {
  const res = await api.post('/api/v1/contracts', { client_id: clientId, start_date: start, status });
  expect(res.statusCode, res.body).toBe(201);
}

/** The whole fixture of the header comment. */
async function pipeline() {
  const f = await makeTenant(t);
  const alice = await namedUser(f.tenant, 'Alice', 'Anders');
  const bob = await namedUser(f.tenant, 'Bob', 'Brown');
  const w = (await makeClient(f.admin, { client_name: 'Wayne' })).client_id;
  const x = (await makeClient(f.admin, { client_name: 'Xenon' })).client_id;
  const y = (await makeClient(f.admin, { client_name: 'Yellow' })).client_id;
  const z = (await makeClient(f.admin, { client_name: 'Zebra' })).client_id;
  const A = alice.userId;
  const B = bob.userId;
  const closed = (s: Omit<ClosedSpec, 'client'> & { client?: string }) => insertClosed(f.tenant, { client: w, ...s });
  const ev = (checkpoint: Checkpoint, at = '2025-08-01T10:00:00.000Z') => [{ checkpoint, at }];

  // Alice: proposed cohort, 6 won + 4 lost.
  const H = await closed({ owner: A, status: 'won', at: '2026-02-10T12:00:00.000Z', client: x, type: 'new_logo', mrr: 10000, nrr: 5000, hw: 2500, evidence: ev('proposed', '2026-02-01T10:00:00.000Z') });
  await closed({ owner: A, status: 'won', at: '2025-03-01T09:00:00.000Z', client: y, type: 'new_logo', evidence: [{ checkpoint: 'qualified', at: '2025-01-10T10:00:00.000Z' }, { checkpoint: 'proposed', at: '2025-02-01T10:00:00.000Z' }] });
  await closed({ owner: A, status: 'won', at: '2025-07-01T10:00:00.000Z', client: z, type: 'new_logo', evidence: ev('proposed', '2025-06-01T10:00:00.000Z') });
  await closed({ owner: A, status: 'won', at: '2025-09-01T10:00:00.000Z', confidence: 'high', evidence: ev('proposed') });
  await closed({ owner: A, status: 'won', at: '2025-09-01T10:00:00.000Z', confidence: 'high', evidence: ev('proposed') });
  await closed({ owner: A, status: 'won', at: '2025-09-01T10:00:00.000Z', evidence: ev('proposed') });
  await closed({ owner: A, status: 'lost', at: '2025-06-01T10:00:00.000Z', evidence: [{ checkpoint: 'proposed', at: '2025-05-01T10:00:00.000Z' }, { checkpoint: 'verbal', at: '2025-06-02T10:00:00.000Z' }] });
  for (let i = 0; i < 3; i++) await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', evidence: ev('proposed') });
  // Alice: qualified cohort, 2 won + 6 lost.
  for (let i = 0; i < 2; i++) await closed({ owner: A, status: 'won', at: '2025-09-01T10:00:00.000Z', evidence: ev('qualified') });
  await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', evidence: [{ checkpoint: 'verbal', at: '2025-08-01T10:00:00.000Z', corrected: true }, { checkpoint: 'qualified', at: '2025-08-02T10:00:00.000Z' }] });
  await closed({ owner: A, status: 'lost', at: '2026-03-15T08:00:00.000Z', mrr: 4000, nrr: 100, evidence: ev('qualified') });
  for (let i = 0; i < 4; i++) await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', evidence: ev('qualified') });
  // Alice: identified cohort (no evidence above identified), 3 lost; verbal cohort, 2 won + 1 lost.
  await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', confidence: 'low', evidence: ev('identified') });
  for (let i = 0; i < 2; i++) await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', confidence: 'low' });
  for (let i = 0; i < 2; i++) await closed({ owner: A, status: 'won', at: '2025-09-01T10:00:00.000Z', confidence: 'committed', evidence: ev('verbal') });
  await closed({ owner: A, status: 'lost', at: '2025-09-01T10:00:00.000Z', confidence: 'high', evidence: ev('verbal') });

  // Bob: 5 closed, not calibrated.
  const bobWon = await closed({ owner: B, status: 'won', at: '2026-03-31T23:59:59.999Z', mrr: 1500, evidence: ev('proposed', '2026-03-01T10:00:00.000Z') });
  await closed({ owner: B, status: 'won', at: '2026-04-01T00:00:00.000Z', mrr: 2700, evidence: ev('verbal', '2026-03-20T10:00:00.000Z') });
  for (let i = 0; i < 3; i++) await closed({ owner: B, status: 'lost', at: '2025-05-01T10:00:00.000Z' });
  // Unowned, lost in the period.
  await closed({ owner: null, status: 'lost', at: '2026-01-20T10:00:00.000Z', currency: 'GBP', mrr: 800 });

  // Contracts deciding the attach rate (client X: day 60 counts; Y: before the win and day 61 do not; Z: draft does not).
  await contract(f.admin, x, '2026-04-11', 'active');
  await contract(f.admin, y, '2025-01-01', 'active');
  await contract(f.admin, y, '2025-05-01', 'active');
  await contract(f.admin, z, '2025-07-15', 'draft');

  const open = (owner: string, body: Record<string, unknown>, cp?: Checkpoint) => makeOpen(f.admin, { client_id: w, owner_id: owner, expected_close_date: '2026-02-15', ...body }, cp);
  const A1 = await open(A, { mrr_cents: 33333, nrr_cents: 10001 }, 'proposed');
  const A2 = await open(A, { mrr_cents: 10002, nrr_cents: 10006, expected_close_date: '2026-01-01' }, 'qualified');
  const A3 = await open(A, { mrr_cents: 10000, nrr_cents: 1, expected_close_date: '2026-03-31' }, 'assessment');
  const A4 = await open(A, { mrr_cents: 9000, nrr_cents: 300 }, 'verbal');
  const A5 = await open(A, { mrr_cents: 5000 });
  const B1 = await open(B, { mrr_cents: 20001, nrr_cents: 3 }, 'proposed');
  const B2 = await open(B, { mrr_cents: 7000, currency_code: 'EUR' }, 'qualified');
  const B3 = await open(B, { mrr_cents: 4000, nrr_cents: 1000, hardware_cents: 500, currency_code: 'EUR' }, 'verbal');
  await open(A, { mrr_cents: 99999, expected_close_date: '2026-04-01' }, 'verbal');
  await open(A, { mrr_cents: 99999, expected_close_date: null }, 'verbal');
  return { ...f, A, B, alice, bob, ids: { H, bobWon, A1, A2, A3, A4, A5, B1, B2, B3 } };
}

type Fixture = Awaited<ReturnType<typeof pipeline>>;
let fx: Fixture;
beforeAll(async () => { fx = await pipeline(); });

describe('GET /opportunities/forecast', () => {
  it('weights each deal (won, calibrated, base), rounds half-to-even per deal, and bands per currency', async () => {
    const res = await fx.admin.get(`${OPPS}/forecast?${PERIOD}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.start).toBe('2026-01-01');
    expect(data.end).toBe('2026-03-31');
    expect(data.by_currency).toEqual([
      { currency_code: 'USD', floor_mrr_cents: 20500, floor_one_time_cents: 7800, ceiling_mrr_cents: 56500, ceiling_one_time_cents: 16305, deal_count: 8 },
      { currency_code: 'EUR', floor_mrr_cents: 4000, floor_one_time_cents: 1500, ceiling_mrr_cents: 5050, ceiling_one_time_cents: 1500, deal_count: 2 },
    ]);
    const byId = new Map((data.composition as Record<string, unknown>[]).map((c) => [c.opportunity_id, c]));
    expect(byId.size).toBe(10);
    const row = (id: string) => {
      const c = byId.get(id)!;
      return [c.currency_code, c.status, c.stage, c.weight, c.weight_source, c.mrr_cents, c.one_time_cents, c.weighted_mrr_cents, c.weighted_one_time_cents, c.in_floor];
    };
    const { ids } = fx;
    expect(row(ids.H)).toEqual(['USD', 'won', 'won', 1, 'won', 10000, 7500, 10000, 7500, true]);
    expect(row(ids.bobWon)).toEqual(['USD', 'won', 'won', 1, 'won', 1500, 0, 1500, 0, true]);
    expect(row(ids.A1)).toEqual(['USD', 'open', 'proposed', 0.6, 'seller_calibration', 33333, 10001, 20000, 6001, false]);
    expect(row(ids.A2)).toEqual(['USD', 'open', 'qualified', 0.25, 'seller_calibration', 10002, 10006, 2500, 2502, false]);
    expect(row(ids.A3)).toEqual(['USD', 'open', 'assessment', 0.35, 'base', 10000, 1, 3500, 0, false]);
    expect(row(ids.A4)).toEqual(['USD', 'open', 'verbal', 0.6667, 'seller_calibration', 9000, 300, 6000, 200, true]);
    expect(row(ids.A5)).toEqual(['USD', 'open', 'identified', 0, 'seller_calibration', 5000, 0, 0, 0, false]);
    expect(row(ids.B1)).toEqual(['USD', 'open', 'proposed', 0.5, 'base', 20001, 3, 10000, 2, false]);
    expect(row(ids.B2)).toEqual(['EUR', 'open', 'qualified', 0.15, 'base', 7000, 0, 1050, 0, false]);
    expect(row(ids.B3)).toEqual(['EUR', 'open', 'verbal', 0.8, 'base', 4000, 1500, 3200, 1200, true]);
    expect(byId.get(ids.A1)).toMatchObject({ owner_id: fx.A, title: 'Open deal' });
    expect(String(byId.get(ids.A1)!.opportunity_number)).toMatch(/^OPP-/);
    // Composition: by currency, then number.
    const order = data.composition.map((c: { currency_code: string; opportunity_number: string }) => `${c.currency_code} ${c.opportunity_number}`);
    expect(order.map((o: string) => o.slice(0, 3))).toEqual(['EUR', 'EUR', 'USD', 'USD', 'USD', 'USD', 'USD', 'USD', 'USD', 'USD']);
    expect(order).toEqual([...order].sort());
  });

  it('a sub-period keeps only its deals; other tenants see nothing', async () => {
    const res = await fx.admin.get(`${OPPS}/forecast?start=2026-03-31&end=2026-03-31`);
    expect(res.statusCode, res.body).toBe(200);
    // A3 (closing 2026-03-31, 3500 | 0) and Bob's deal won at 23:59:59.999 (1500 in the floor).
    expect(res.json().data.by_currency).toEqual([{ currency_code: 'USD', floor_mrr_cents: 1500, floor_one_time_cents: 0, ceiling_mrr_cents: 5000, ceiling_one_time_cents: 0, deal_count: 2 }]);
    const other = await makeTenant(t);
    expect((await other.admin.get(`${OPPS}/forecast?${PERIOD}`)).json().data).toEqual({ start: '2026-01-01', end: '2026-03-31', by_currency: [], composition: [] });
  });

  it('400 for a missing, malformed or inverted period, or one over five years; 401; 403', async () => {
    for (const q of ['', '?start=2026-01-01', '?end=2026-01-01', '?start=2026-13-01&end=2026-12-01', '?start=20260101&end=2026-02-01', `?${PERIOD}&owner_id=x`]) {
      expectError(await fx.admin.get(`${OPPS}/forecast${q}`), 400, 'VALIDATION_ERROR');
    }
    const inverted = await fx.admin.get(`${OPPS}/forecast?start=2026-02-01&end=2026-01-31`);
    expectError(inverted, 400, 'VALIDATION_ERROR');
    expect(inverted.json().error.details).toEqual([{ path: 'querystring.end', message: 'must not be before start (2026-02-01)' }]);
    expect((await fx.admin.get(`${OPPS}/forecast?start=2024-02-29&end=2029-02-28`)).statusCode).toBe(200);
    const tooLong = await fx.admin.get(`${OPPS}/forecast?start=2024-02-29&end=2029-03-01`);
    expectError(tooLong, 400, 'VALIDATION_ERROR');
    expect(tooLong.json().error.message).toContain('at most 5 years');
    expectError(await anonymous(t).get(`${OPPS}/forecast?${PERIOD}`), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, fx.tenant, { role: 'Technician' })).api;
    expectError(await tech.get(`${OPPS}/forecast?${PERIOD}`), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, fx.tenant, { role: 'Finance' })).api;
    expect((await finance.get(`${OPPS}/forecast?${PERIOD}`)).statusCode).toBe(200);
  });
});

describe('GET /opportunities/calibration', () => {
  it('per seller: stage rates, confidence outcomes and attach rate', async () => {
    const res = await fx.admin.get(`${OPPS}/calibration`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        seller_id: fx.A, seller_name: 'Alice Anders', closed_deal_count: 24, calibrated: true,
        stage_rates: [
          { stage: 'identified', closed_count: 3, won_count: 0, rate: 0, source: 'seller_calibration' },
          { stage: 'qualified', closed_count: 8, won_count: 2, rate: 0.25, source: 'seller_calibration' },
          { stage: 'assessment', closed_count: 0, won_count: 0, rate: 0.35, source: 'base' },
          { stage: 'proposed', closed_count: 10, won_count: 6, rate: 0.6, source: 'seller_calibration' },
          { stage: 'verbal', closed_count: 3, won_count: 2, rate: 0.6667, source: 'seller_calibration' },
        ],
        confidence_outcomes: [
          { confidence: 'low', closed_count: 3, won_count: 0, close_rate: 0 },
          { confidence: 'medium', closed_count: 16, won_count: 6, close_rate: 0.375 },
          { confidence: 'high', closed_count: 3, won_count: 2, close_rate: 0.6667 },
          { confidence: 'committed', closed_count: 2, won_count: 2, close_rate: 1 },
        ],
        attach_rate: { won_new_logo_count: 3, attached_count: 1, rate: 0.3333 },
      },
      {
        seller_id: fx.B, seller_name: 'Bob Brown', closed_deal_count: 5, calibrated: false,
        stage_rates: [
          { stage: 'identified', closed_count: 3, won_count: 0, rate: 0.05, source: 'base' },
          { stage: 'qualified', closed_count: 0, won_count: 0, rate: 0.15, source: 'base' },
          { stage: 'assessment', closed_count: 0, won_count: 0, rate: 0.35, source: 'base' },
          { stage: 'proposed', closed_count: 1, won_count: 1, rate: 0.5, source: 'base' },
          { stage: 'verbal', closed_count: 1, won_count: 1, rate: 0.8, source: 'base' },
        ],
        confidence_outcomes: [
          { confidence: 'low', closed_count: 0, won_count: 0, close_rate: null },
          { confidence: 'medium', closed_count: 5, won_count: 2, close_rate: 0.4 },
          { confidence: 'high', closed_count: 0, won_count: 0, close_rate: null },
          { confidence: 'committed', closed_count: 0, won_count: 0, close_rate: null },
        ],
        attach_rate: { won_new_logo_count: 0, attached_count: 0, rate: null },
      },
    ]);
  });

  it('the 20th closed deal switches a seller to calibrated rates in the forecast', async () => {
    const f = await makeTenant(t);
    const seller = await namedUser(f.tenant, 'Cara', 'Cole');
    const client = (await makeClient(f.admin)).client_id;
    // 19 closed at proposed: 19 lost. An open proposed deal of 1000 is weighted at the base 0.5 …
    for (let i = 0; i < 19; i++) await insertClosed(f.tenant, { owner: seller.userId, status: 'lost', at: '2025-09-01T10:00:00.000Z', client, evidence: [{ checkpoint: 'proposed', at: '2025-08-01T10:00:00.000Z' }] });
    const open = await makeOpen(f.admin, { client_id: client, owner_id: seller.userId, mrr_cents: 1000, expected_close_date: '2026-02-01' }, 'proposed');
    const weightOf = async () => (await f.admin.get(`${OPPS}/forecast?${PERIOD}`)).json().data.composition.find((c: { opportunity_id: string }) => c.opportunity_id === open);
    expect(await weightOf()).toMatchObject({ weight: 0.5, weight_source: 'base', weighted_mrr_cents: 500 });
    // … the 20th (won, at proposed) makes it 1/20 = 0.05 → 50.
    await insertClosed(f.tenant, { owner: seller.userId, status: 'won', at: '2025-09-01T10:00:00.000Z', client, evidence: [{ checkpoint: 'proposed', at: '2025-08-01T10:00:00.000Z' }] });
    expect(await weightOf()).toMatchObject({ weight: 0.05, weight_source: 'seller_calibration', weighted_mrr_cents: 50 });
    const cal = (await f.admin.get(`${OPPS}/calibration`)).json().data;
    expect(cal).toHaveLength(1);
    expect(cal[0]).toMatchObject({ seller_name: 'Cara Cole', closed_deal_count: 20, calibrated: true });
    expect(cal[0].stage_rates[3]).toEqual({ stage: 'proposed', closed_count: 20, won_count: 1, rate: 0.05, source: 'seller_calibration' });
  });

  it('401, 403, 400 for unknown parameters; empty for a tenant without closed deals', async () => {
    expectError(await anonymous(t).get(`${OPPS}/calibration`), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, fx.tenant, { role: 'Technician' })).api;
    expectError(await tech.get(`${OPPS}/calibration`), 403, 'FORBIDDEN');
    expectError(await fx.admin.get(`${OPPS}/calibration?seller_id=x`), 400, 'VALIDATION_ERROR');
    const other = await makeTenant(t);
    expect((await other.admin.get(`${OPPS}/calibration`)).json()).toEqual({ data: [] });
  });
});

describe('GET /opportunities/rollups', () => {
  it('one row per owner per currency: open closing in the period, won and lost in it', async () => {
    const res = await fx.admin.get(`${OPPS}/rollups?${PERIOD}`);
    expect(res.statusCode, res.body).toBe(200);
    const none = { won_new_logo_count: 0, attached_count: 0, rate: null };
    expect(res.json().data).toEqual([
      {
        owner_id: fx.A, owner_name: 'Alice Anders', currency_code: 'USD',
        // A1..A5: 33333 + 10002 + 10000 + 9000 + 5000; one-time 10001 + 10006 + 1 + 300 + 0.
        open_count: 5, open_mrr_cents: 67335, open_one_time_cents: 20308,
        won_count: 1, won_mrr_cents: 10000, won_one_time_cents: 7500,
        lost_count: 1, lost_mrr_cents: 4000, lost_one_time_cents: 100,
        attach_rate: { won_new_logo_count: 1, attached_count: 1, rate: 1 },
      },
      {
        owner_id: fx.B, owner_name: 'Bob Brown', currency_code: 'EUR',
        open_count: 2, open_mrr_cents: 11000, open_one_time_cents: 1500,
        won_count: 0, won_mrr_cents: 0, won_one_time_cents: 0, lost_count: 0, lost_mrr_cents: 0, lost_one_time_cents: 0,
        attach_rate: none,
      },
      {
        owner_id: fx.B, owner_name: 'Bob Brown', currency_code: 'USD',
        open_count: 1, open_mrr_cents: 20001, open_one_time_cents: 3,
        won_count: 1, won_mrr_cents: 1500, won_one_time_cents: 0, lost_count: 0, lost_mrr_cents: 0, lost_one_time_cents: 0,
        attach_rate: none,
      },
      {
        owner_id: null, owner_name: null, currency_code: 'GBP',
        open_count: 0, open_mrr_cents: 0, open_one_time_cents: 0, won_count: 0, won_mrr_cents: 0, won_one_time_cents: 0,
        lost_count: 1, lost_mrr_cents: 800, lost_one_time_cents: 0,
        attach_rate: none,
      },
    ]);
  });

  it('400 for a bad period; 401; 403; empty for another tenant', async () => {
    expectError(await fx.admin.get(`${OPPS}/rollups`), 400, 'VALIDATION_ERROR');
    expectError(await fx.admin.get(`${OPPS}/rollups?start=2026-03-01&end=2026-02-01`), 400, 'VALIDATION_ERROR');
    expectError(await fx.admin.get(`${OPPS}/rollups?start=2020-01-01&end=2026-01-01`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`${OPPS}/rollups?${PERIOD}`), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, fx.tenant, { role: 'Technician' })).api;
    expectError(await tech.get(`${OPPS}/rollups?${PERIOD}`), 403, 'FORBIDDEN');
    const other = await makeTenant(t);
    expect((await other.admin.get(`${OPPS}/rollups?${PERIOD}`)).json()).toEqual({ data: [] });
  });
});
