import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';
import { makeTicket } from '../../../../test/ticket-factories.ts';
import {
  backdateTicket,
  dayFromToday,
  makeContract,
  makeFixedLine,
  makeService,
  rowCounts,
  serviceTypeId,
  yearsAgo,
} from '../../../../test/opportunity-signals-kit.ts';
import { quarterOf } from '../suggestions/generators/common.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/opportunities/qbr';
const SEVEN_DAYS = 7 * 86_400_000;

interface TriggerJson {
  trigger_key: string;
  kind: string;
  title: string;
  evidence: Record<string, unknown>;
  opportunity_type: string;
  generator_key: string | null;
  mrr_cents: number;
  nrr_cents: number;
  currency_code: string;
  default_next_action: string;
  opportunity_id: string | null;
}

/**
 * A tenant where client A fires all four kinds (a contract ending in 30 days, an 8-year-old asset, more
 * tickets lately than before, and no Cloud Services while two of three contracted clients have them);
 * B and C have Cloud Services and a flat ticket count (no trigger); D only an aging asset.
 */
async function fixture() {
  const f = await makeTenant(t);
  const { admin, tenant } = f;
  const managed = await makeFixedLine(admin, { base_rate_cents: 90_000, serviceIds: [await makeService(admin, 'Managed Services')] });
  const cloud = await makeFixedLine(admin, { serviceIds: [await makeService(admin, 'Cloud Services')] });
  const a = await makeClient(admin, { client_name: 'Alpha QBR' });
  const b = await makeClient(admin, { client_name: 'Beta QBR' });
  const c = await makeClient(admin, { client_name: 'Gamma QBR' });
  const d = await makeClient(admin, { client_name: 'Delta QBR' });
  const end = dayFromToday(30);
  const renewing = await makeContract(admin, a.client_id, { end_date: end, lines: [managed], contract_name: 'Alpha care' });
  const later = await makeContract(admin, a.client_id, { end_date: dayFromToday(150) });
  await makeContract(admin, b.client_id, { lines: [cloud] });
  await makeContract(admin, c.client_id, { lines: [cloud] });
  const asset = await makeAsset(admin, { client_id: a.client_id, purchase_date: yearsAgo(8) });
  await makeAsset(admin, { client_id: d.client_id, purchase_date: yearsAgo(9) });
  for (let i = 0; i < 3; i++) await makeTicket(admin, a.client_id);
  const oldTicket = await makeTicket(admin, a.client_id);
  await backdateTicket(t, tenant, oldTicket.ticket_id, 120);
  await makeTicket(admin, b.client_id);
  await backdateTicket(t, tenant, (await makeTicket(admin, b.client_id)).ticket_id, 100);
  const year = new Date().getUTCFullYear();
  const cloudType = await serviceTypeId(admin, 'Cloud Services');
  const keys = {
    renewal: `renewal:${renewing.client_contract_id}:${end}`,
    later: `renewal:${later.client_contract_id}:${dayFromToday(150)}`,
    aging: `asset_aging:${a.client_id}:${year}`,
    trend: `ticket_trend:${a.client_id}:${quarterOf(new Date())}`,
    whitespace: `whitespace:${a.client_id}:${cloudType}`,
    agingD: `asset_aging:${d.client_id}:${year}`,
  };
  return { ...f, a, b, c, d, keys, asset, end };
}

async function pack(api: Api, clientId: string): Promise<{ client_id: string; client_name: string; triggers: TriggerJson[] }> {
  const res = await api.get(`${BASE}/${clientId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('QBR trigger pack', () => {
  it('computes renewals within renewal_lead_days, asset aging, ticket trend and whitespace live, and GET writes nothing', async () => {
    const { tenant, admin, a, b, d, keys, asset, end } = await fixture();
    const before = await rowCounts(t, tenant);
    const p = await pack(admin, a.client_id);
    expect(p.client_id).toBe(a.client_id);
    expect(p.client_name).toBe('Alpha QBR');
    expect(p.triggers.map((x) => [x.kind, x.trigger_key])).toEqual([
      ['renewal', keys.renewal],
      ['asset_aging', keys.aging],
      ['ticket_trend', keys.trend],
      ['whitespace', keys.whitespace],
    ]);
    const [renewal, aging, trend, gap] = p.triggers;
    expect(renewal).toMatchObject({ title: `Renew Alpha care (ends ${end})`, opportunity_type: 'renewal', generator_key: 'renewal', mrr_cents: 90_000, nrr_cents: 0, currency_code: 'USD', default_next_action: 'Start the renewal conversation', opportunity_id: null });
    expect(renewal!.evidence).toMatchObject({ end_date: end, renewal_lead_days: 120 });
    expect(aging).toMatchObject({ opportunity_type: 'project', generator_key: 'asset_aging', default_next_action: 'Scope the asset refresh', evidence: { asset_count: 1, asset_ids: [asset.asset_id] } });
    expect(trend).toMatchObject({
      opportunity_type: 'expansion', generator_key: null, default_next_action: 'Hold a support-volume review with the client',
      title: 'Support-volume review: 3 tickets in the last 90 days, up from 1', evidence: { recent_count: 3, prior_count: 1 },
    });
    expect(gap).toMatchObject({ opportunity_type: 'expansion', generator_key: 'whitespace', default_next_action: 'Discuss the missing service category', evidence: { service_type_name: 'Cloud Services', adopting_clients: 2, clients_with_active_contracts: 3 } });
    // Near misses: a flat ticket count, no aging asset, a type held by every contracted client but this one… none here.
    expect((await pack(admin, b.client_id)).triggers).toEqual([]);
    expect((await pack(admin, d.client_id)).triggers.map((x) => x.trigger_key)).toEqual([keys.agingD]);
    expect(await rowCounts(t, tenant)).toEqual(before);

    // The tenant's lead time, not a hard-coded 120 days, decides which renewals show.
    await t.database.db.insertInto('opportunity_settings').values({ tenant, renewal_lead_days: 200, updated_at: new Date() })
      .onConflict((oc) => oc.column('tenant').doUpdateSet({ renewal_lead_days: 200 })).execute();
    expect((await pack(admin, a.client_id)).triggers.filter((x) => x.kind === 'renewal').map((x) => x.trigger_key)).toEqual([keys.renewal, keys.later]);
  });

  it('404 for an unknown or another tenant’s client, 400 for a bad id, 401 without a key, 403 without opportunity:read', async () => {
    const { tenant, admin, a } = await makeTenant(t).then(async (f) => ({ ...f, a: await makeClient(f.admin) }));
    const other = await makeTenant(t);
    expectError(await admin.get(`${BASE}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${BASE}/${a.client_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`${BASE}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}/${a.client_id}?x=1`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`${BASE}/${a.client_id}`), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, tenant, { role: 'Technician' })).api.get(`${BASE}/${a.client_id}`), 403, 'FORBIDDEN');
    expect((await (await makeUser(t, tenant, { role: 'Finance' })).api.get(`${BASE}/${a.client_id}`)).statusCode).toBe(200);
  });
});

describe('acting on QBR triggers', () => {
  it('creates one prefilled opportunity per trigger in one go, idempotent per trigger; unknown keys are a 422 that creates nothing', async () => {
    const { tenant, admin, adminUserId, a, d, keys } = await fixture();
    const started = Date.now();
    const res = await admin.post(`${BASE}/${a.client_id}/opportunities`, { trigger_keys: [keys.renewal, keys.trend, keys.renewal] });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created).toHaveLength(2);
    expect(created[0]).toMatchObject({
      client_id: a.client_id, opportunity_type: 'renewal', status: 'open', stage: 'identified', confidence: 'medium', owner_id: adminUserId,
      next_action: 'Start the renewal conversation', generator_key: 'renewal', mrr_cents: 90_000, currency_code: 'USD',
      generator_context: { qbr: true, qbr_trigger_key: keys.renewal, qbr_trigger_kind: 'renewal', qbr_evidence: { end_date: expect.any(String) } },
    });
    expect(created[1]).toMatchObject({
      opportunity_type: 'expansion', generator_key: null, next_action: 'Hold a support-volume review with the client',
      generator_context: { qbr: true, qbr_trigger_key: keys.trend, qbr_trigger_kind: 'ticket_trend', qbr_evidence: { recent_count: 3, prior_count: 1 } },
    });
    for (const o of created) {
      expect(Date.parse(o.next_action_due)).toBeGreaterThanOrEqual(started + SEVEN_DAYS - 1000);
      expect(Date.parse(o.next_action_due)).toBeLessThanOrEqual(Date.now() + SEVEN_DAYS + 1000);
    }
    const recorded = await t.database.db.selectFrom('opportunity_qbr_triggers').select(['trigger_key', 'kind', 'client_id', 'opportunity_id']).where('tenant', '=', tenant).orderBy('trigger_key').execute();
    expect(recorded).toEqual([
      { trigger_key: keys.renewal, kind: 'renewal', client_id: a.client_id, opportunity_id: created[0].opportunity_id },
      { trigger_key: keys.trend, kind: 'ticket_trend', client_id: a.client_id, opportunity_id: created[1].opportunity_id },
    ].sort((x, y) => x.trigger_key.localeCompare(y.trigger_key)));

    // Again, with one more: the acted-on trigger returns its deal, the new one gets its own.
    const again = await admin.post(`${BASE}/${a.client_id}/opportunities`, { trigger_keys: [keys.renewal, keys.aging] });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data[0].opportunity_id).toBe(created[0].opportunity_id);
    expect(again.json().data[1]).toMatchObject({ opportunity_type: 'project', generator_key: 'asset_aging', next_action: 'Scope the asset refresh' });
    const opportunities = async () => (await t.database.db.selectFrom('opportunities').select('opportunity_id').where('tenant', '=', tenant).execute()).length;
    expect(await opportunities()).toBe(3);
    const p = await pack(admin, a.client_id);
    expect(Object.fromEntries(p.triggers.map((x) => [x.kind, x.opportunity_id]))).toEqual({
      renewal: created[0].opportunity_id, ticket_trend: created[1].opportunity_id, asset_aging: again.json().data[1].opportunity_id, whitespace: null,
    });

    const bad = await admin.post(`${BASE}/${a.client_id}/opportunities`, { trigger_keys: [keys.whitespace, 'bogus:1', keys.agingD] });
    expectError(bad, 422, 'UNPROCESSABLE');
    expect(bad.json().error.message).toContain('bogus:1');
    expect(bad.json().error.details).toEqual({ trigger_keys: ['bogus:1', keys.agingD] });
    expect(await opportunities()).toBe(3);
    expect((await pack(admin, a.client_id)).triggers.find((x) => x.kind === 'whitespace')!.opportunity_id).toBeNull();

    // Another client's trigger is its own: D acts on its aging trigger.
    const forD = await admin.post(`${BASE}/${d.client_id}/opportunities`, { trigger_keys: [keys.agingD] });
    expect(forD.statusCode, forD.body).toBe(201);
    expect(forD.json().data[0]).toMatchObject({ client_id: d.client_id, opportunity_type: 'project' });
  });

  it('refuses bad bodies with 400, unknown or foreign clients with 404, and callers without opportunity:create with 401/403', async () => {
    const { tenant, admin, a, keys } = await fixture();
    const url = `${BASE}/${a.client_id}/opportunities`;
    for (const body of [{}, { trigger_keys: [] }, { trigger_keys: Array.from({ length: 101 }, (_, i) => `k${i}`) }, { trigger_keys: [''] }, { trigger_keys: ['x'.repeat(301)] }, { trigger_keys: [keys.renewal], extra: 1 }, { trigger_keys: 'x' }]) {
      expectError(await admin.post(url, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.post(`${BASE}/${randomId()}/opportunities`, { trigger_keys: [keys.renewal] }), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.post(url, { trigger_keys: [keys.renewal] }), 404, 'NOT_FOUND');
    expectError(await admin.post(`${BASE}/nope/opportunities`, { trigger_keys: [keys.renewal] }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).post(url, { trigger_keys: [keys.renewal] }), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, tenant, { role: 'Technician' })).api.post(url, { trigger_keys: [keys.renewal] }), 403, 'FORBIDDEN');
    expectError(await (await makeUser(t, tenant, { role: 'Finance' })).api.post(url, { trigger_keys: [keys.renewal] }), 403, 'FORBIDDEN');
    expect(await t.database.db.selectFrom('opportunity_qbr_triggers').select('trigger_key').where('tenant', '=', tenant).execute()).toEqual([]);
  });
});

describe('QBR yield', () => {
  it('counts per client the triggers fired (by the scheduled run, acted on or not), the opportunities created and those won', async () => {
    const { tenant, admin, a, d, keys } = await fixture();
    expect((await admin.get(`${BASE}/yield`)).json()).toEqual({ data: [], pagination: { page: 1, limit: 25, total: 0, totalPages: 0, hasNext: false, hasPrev: false } });
    // The generator run (what the hourly schedule does) records every trigger firing now, without an opportunity.
    const run = await admin.post('/api/v1/opportunities/suggestions/generate', {});
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().data.qbr_triggers_recorded).toBe(5);
    const created = (await admin.post(`${BASE}/${a.client_id}/opportunities`, { trigger_keys: [keys.renewal, keys.whitespace] })).json().data;
    const win = await admin.post(`/api/v1/opportunities/${created[0].opportunity_id}/win`, {});
    expect(win.statusCode, win.body).toBe(200);

    const res = await admin.get(`${BASE}/yield`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: [
        { client_id: a.client_id, client_name: 'Alpha QBR', triggers_fired: 4, opportunities_created: 2, opportunities_won: 1 },
        { client_id: d.client_id, client_name: 'Delta QBR', triggers_fired: 1, opportunities_created: 0, opportunities_won: 0 },
      ],
      pagination: { page: 1, limit: 25, total: 2, totalPages: 1, hasNext: false, hasPrev: false },
    });
    const page2 = (await admin.get(`${BASE}/yield?limit=1&page=2`)).json();
    expect(page2.data.map((r: { client_id: string }) => r.client_id)).toEqual([d.client_id]);
    expect(page2.pagination).toMatchObject({ total: 2, totalPages: 2, hasPrev: true, hasNext: false });
    expect((await admin.get(`${BASE}/yield?client_id=${d.client_id}`)).json().data).toHaveLength(1);
    // Generating again records nothing new.
    expect((await admin.post('/api/v1/opportunities/suggestions/generate', {})).json().data.qbr_triggers_recorded).toBe(0);

    expectError(await admin.get(`${BASE}/yield?limit=0`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}/yield?client_id=x`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`${BASE}/yield`), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, tenant, { role: 'Technician' })).api.get(`${BASE}/yield`), 403, 'FORBIDDEN');
    const other = await makeTenant(t);
    expect((await other.admin.get(`${BASE}/yield`)).json().data).toEqual([]);
  });
});
