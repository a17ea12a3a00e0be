import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';
import {
  actorOf,
  dayFromToday,
  makeContract,
  makeFixedLine,
  makeService,
  makeTmInvoice,
  yearsAgo,
} from '../../../../test/opportunity-signals-kit.ts';
import type { GeneratorKey } from '../../../platform/db/schema.opportunities.ts';
import { newId } from '../../../platform/ids.ts';
import { quarterOf } from './generators/common.ts';
import { runSuggestionGenerators } from './generators/index.ts';
import { suggestionGenerationSchedule } from './suggestions.schedule.ts';
import { createSuggestionsService } from './suggestions.service.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/opportunities/suggestions';

interface SuggestionJson {
  suggestion_id: string;
  generator_key: string;
  client_id: string;
  client_name: string;
  title: string;
  evidence: Record<string, unknown>;
  mrr_cents: number;
  nrr_cents: number;
  currency_code: string;
  status: string;
  snoozed_until: string | null;
  dedupe_key: string;
  created_opportunity_id: string | null;
}

async function generate(api: Api) {
  const res = await api.post(`${BASE}/generate`, {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { created: number; by_generator: Record<string, number>; qbr_triggers_recorded: number };
}

async function list(api: Api, query = ''): Promise<SuggestionJson[]> {
  const res = await api.get(`${BASE}?limit=100${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as SuggestionJson[];
}

async function suggestionRows(tenant: string) {
  return t.database.db.selectFrom('opportunity_suggestions').selectAll().where('tenant', '=', tenant).orderBy('dedupe_key').execute();
}

/** A suggestion written directly (for generators without a scan, or a precise fixture). */
async function insertSuggestion(tenant: string, clientId: string, over: { generator_key?: GeneratorKey; title?: string; created_at?: Date; mrr_cents?: number; currency_code?: string; evidence?: Record<string, unknown> } = {}): Promise<string> {
  const id = newId();
  await t.database.db.insertInto('opportunity_suggestions').values({
    tenant,
    suggestion_id: id,
    generator_key: over.generator_key ?? 'renewal',
    client_id: clientId,
    title: over.title ?? 'Suggested deal',
    evidence: JSON.stringify(over.evidence ?? { reason: 'fixture' }),
    mrr_cents: over.mrr_cents ?? 5000,
    nrr_cents: 0,
    currency_code: over.currency_code ?? 'USD',
    dedupe_key: `fixture:${id}`,
    created_at: over.created_at ?? new Date(),
    updated_at: new Date(),
  }).execute();
  return id;
}

const SEVEN_DAYS = 7 * 86_400_000;

describe('suggestion generators', () => {
  it('renewal: an active contract ending within renewal_lead_days fires once, with the MRR of its fixed lines in its currency; near misses do not', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Renewco' });
    const monthly = await makeFixedLine(admin, { base_rate_cents: 100_000, currency_code: 'EUR' });
    const quarterly = await makeFixedLine(admin, { base_rate_cents: 1, billing_frequency: 'quarterly', currency_code: 'EUR' });
    const annual = await makeFixedLine(admin, { base_rate_cents: 6, billing_frequency: 'annually', currency_code: 'EUR' });
    const end = dayFromToday(30);
    // 100000 + 30000 × 4 / 12 + 6 / 12 = 110000.5 → half-even 110000.
    const due = await makeContract(admin, client.client_id, { end_date: end, currency_code: 'EUR', contract_name: 'Managed care', lines: [monthly, { id: quarterly, custom_rate_cents: 30_000 }, annual] });
    const later = await makeContract(admin, client.client_id, { end_date: dayFromToday(200), currency_code: 'EUR' });
    await makeContract(admin, client.client_id, { end_date: dayFromToday(20), status: 'draft' });
    await makeContract(admin, client.client_id, { end_date: dayFromToday(20), status: 'terminated' });
    await makeContract(admin, client.client_id, { end_date: null });
    await makeContract(admin, client.client_id, { end_date: dayFromToday(-1) });

    expect(await generate(admin)).toMatchObject({ created: 1, by_generator: { renewal: 1, tm_conversion: 0, whitespace: 0, asset_aging: 0 } });
    const [s] = await list(admin);
    expect(s).toMatchObject({
      generator_key: 'renewal', client_id: client.client_id, client_name: 'Renewco', title: `Renew Managed care (ends ${end})`,
      mrr_cents: 110_000, nrr_cents: 0, currency_code: 'EUR', status: 'pending', snoozed_until: null,
      dedupe_key: `renewal:${due.client_contract_id}:${end}`, created_opportunity_id: null,
    });
    expect(s!.evidence).toMatchObject({ client_contract_id: due.client_contract_id, contract_id: due.contract_id, end_date: end, days_until_end: 30, renewal_lead_days: 120, mrr_cents: 110_000, fixed_line_count: 3 });

    expect(await generate(admin)).toMatchObject({ created: 0 });
    // A longer lead time reaches the contract ending in 200 days.
    await t.database.db.insertInto('opportunity_settings').values({ tenant, renewal_lead_days: 365, updated_at: new Date() })
      .onConflict((oc) => oc.column('tenant').doUpdateSet({ renewal_lead_days: 365 })).execute();
    expect(await generate(admin)).toMatchObject({ created: 1, by_generator: { renewal: 1 } });
    expect((await list(admin)).map((x) => x.dedupe_key)).toContain(`renewal:${later.client_contract_id}:${dayFromToday(200)}`);
  });

  it('tm_conversion: hand-made invoices of the last 12 months averaging the threshold fire per client and currency; below it, outside the window, drafts, generated invoices and mixed currencies do not', async () => {
    const { tenant, admin } = await makeTenant(t);
    const hit = await makeClient(admin, { client_name: 'Hourly Heavy' });
    await makeTmInvoice(admin, hit.client_id, { issue_date: dayFromToday(-30), cents: 720_000 });
    await makeTmInvoice(admin, hit.client_id, { issue_date: dayFromToday(-200), cents: 720_000 }); // 1,440,000 / 12 = 120,000: the default threshold
    const below = await makeClient(admin);
    await makeTmInvoice(admin, below.client_id, { issue_date: dayFromToday(-10), cents: 1_439_988 }); // 119,999 a month
    const old = await makeClient(admin);
    await makeTmInvoice(admin, old.client_id, { issue_date: dayFromToday(-400), cents: 9_000_000 });
    await makeTmInvoice(admin, old.client_id, { issue_date: dayFromToday(-5), cents: 9_000_000, draft: true });
    const generated = await makeClient(admin);
    const gen = await makeTmInvoice(admin, generated.client_id, { issue_date: dayFromToday(-5), cents: 9_000_000 });
    await t.database.db.updateTable('invoices').set({ is_generated: true }).where('tenant', '=', tenant).where('invoice_id', '=', gen).execute();
    const mixed = await makeClient(admin);
    await makeTmInvoice(admin, mixed.client_id, { issue_date: dayFromToday(-5), cents: 800_000 });
    await makeTmInvoice(admin, mixed.client_id, { issue_date: dayFromToday(-6), cents: 800_000, currency_code: 'EUR' });

    expect(await generate(admin)).toMatchObject({ created: 1, by_generator: { tm_conversion: 1, renewal: 0, whitespace: 0, asset_aging: 0 } });
    const [s] = await list(admin);
    expect(s).toMatchObject({ generator_key: 'tm_conversion', client_id: hit.client_id, mrr_cents: 120_000, currency_code: 'USD', dedupe_key: `tm:${hit.client_id}:${quarterOf(new Date())}` });
    expect(s!.evidence).toMatchObject({ threshold_cents: 120_000, monthly_average_cents: 120_000, total_cents: 1_440_000, invoice_count: 2, currency_code: 'USD' });
    expect(await generate(admin)).toMatchObject({ created: 0 });
  });

  it('whitespace: a service type on the active contracts of at least half the contracted clients fires for each contracted client without it', async () => {
    const { admin } = await makeTenant(t);
    const managed = await makeFixedLine(admin, { serviceIds: [await makeService(admin, 'Managed Services')] });
    const cloud = await makeFixedLine(admin, { serviceIds: [await makeService(admin, 'Cloud Services')] });
    const licences = await makeFixedLine(admin, { serviceIds: [await makeService(admin, 'Software Licenses')] });
    const a = await makeClient(admin);
    const b = await makeClient(admin);
    const c = await makeClient(admin, { client_name: 'Cloudless' });
    const d = await makeClient(admin);
    const prospect = await makeClient(admin);
    await makeContract(admin, a.client_id, { lines: [managed, cloud] });
    await makeContract(admin, b.client_id, { lines: [managed, cloud] });
    await makeContract(admin, c.client_id, { lines: [managed] });
    await makeContract(admin, d.client_id, { lines: [managed, licences] });
    await makeContract(admin, prospect.client_id, { lines: [managed], status: 'draft' }); // not contracted: neither counted nor suggested

    expect(await generate(admin)).toMatchObject({ created: 2, by_generator: { whitespace: 2 } });
    const found = await list(admin);
    const cloudType = (await admin.get('/api/v1/service-types?search=Cloud Services')).json().data[0].service_type_id;
    expect(found.map((s) => s.dedupe_key).sort()).toEqual([`whitespace:${c.client_id}:${cloudType}`, `whitespace:${d.client_id}:${cloudType}`].sort());
    const forC = found.find((s) => s.client_id === c.client_id)!;
    expect(forC).toMatchObject({ generator_key: 'whitespace', title: 'Offer Cloud Services (used by 2 of 4 contracted clients)', mrr_cents: 0, currency_code: 'USD' });
    expect(forC.evidence).toMatchObject({ service_type_id: cloudType, service_type_name: 'Cloud Services', adopting_clients: 2, clients_with_active_contracts: 4, adoption_rate: 0.5 });
    expect(await generate(admin)).toMatchObject({ created: 0 });
  });

  it('asset_aging: in-service assets bought (or out of warranty) asset_age_years ago fire one suggestion per client per year; younger, retired and lost assets do not', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Old Iron' });
    const bought = await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(7) });
    const warranty = await makeAsset(admin, { client_id: client.client_id, warranty_end_date: yearsAgo(6, -10) });
    await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(5) });
    await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(10), status: 'retired' });
    await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(10), status: 'lost' });
    const young = await makeClient(admin);
    await makeAsset(admin, { client_id: young.client_id, purchase_date: yearsAgo(6, 20) });

    expect(await generate(admin)).toMatchObject({ created: 1, by_generator: { asset_aging: 1 } });
    const [s] = await list(admin);
    expect(s).toMatchObject({ generator_key: 'asset_aging', client_id: client.client_id, title: 'Refresh 2 aging assets at Old Iron', currency_code: 'USD', dedupe_key: `asset_aging:${client.client_id}:${new Date().getUTCFullYear()}` });
    expect(s!.evidence).toMatchObject({ asset_count: 2, asset_age_years: 6, asset_ids: [bought.asset_id, warranty.asset_id], oldest_date: yearsAgo(7) });
    expect(await generate(admin)).toMatchObject({ created: 0 });
  });

  it('re-running is idempotent and a dismissed key never refires (runSuggestionGenerators directly, at a later clock too)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(8) });
    await makeContract(admin, client.client_id, { end_date: dayFromToday(10) });
    const first = await runSuggestionGenerators(t.database.db, tenant, new Date());
    expect(first).toEqual({ created: 2, by_generator: { renewal: 1, tm_conversion: 0, whitespace: 0, asset_aging: 1 } });
    expect(await runSuggestionGenerators(t.database.db, tenant, new Date())).toEqual({ created: 0, by_generator: { renewal: 0, tm_conversion: 0, whitespace: 0, asset_aging: 0 } });
    const renewal = (await list(admin)).find((s) => s.generator_key === 'renewal')!;
    expect((await admin.post(`${BASE}/${renewal.suggestion_id}/dismiss`, {})).statusCode).toBe(200);
    expect(await runSuggestionGenerators(t.database.db, tenant, new Date(Date.now() + 86_400_000))).toMatchObject({ created: 0 });
    const rows = await suggestionRows(tenant);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.generator_key === 'renewal')!.status).toBe('dismissed');
    expect((await list(admin)).map((s) => s.generator_key)).toEqual(['asset_aging']);
  });

  it('the hourly schedule runs every tenant, and one tenant failing does not stop the others', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeAsset(admin, { client_id: client.client_id, purchase_date: yearsAgo(9) });
    const schedule = suggestionGenerationSchedule(t.database.db);
    expect(schedule).toMatchObject({ name: 'opportunity-suggestions', cron: '17 * * * *' });
    await schedule.run();
    expect((await suggestionRows(tenant)).map((r) => r.generator_key)).toEqual(['asset_aging']);
    expect(await t.database.db.selectFrom('opportunity_qbr_triggers').select(['kind', 'client_id', 'opportunity_id']).where('tenant', '=', tenant).execute())
      .toEqual([{ kind: 'asset_aging', client_id: client.client_id, opportunity_id: null }]);

    const other = await makeTenant(t);
    const visited: string[] = [];
    const errors: unknown[] = [];
    const failing = suggestionGenerationSchedule(t.database.db, {
      log: { error: (obj) => errors.push(obj) },
      run: async (_db, id) => {
        visited.push(id);
        if (id === tenant) throw new Error('boom');
      },
    });
    await expect(failing.run()).rejects.toThrow(/failed for 1 tenant/);
    expect(visited).toContain(tenant);
    expect(visited).toContain(other.tenant);
    expect(errors).toEqual([expect.objectContaining({ tenant })]);
  });
});

describe('listing suggestions', () => {
  it('pages newest first with the list envelope, filters by status, client and generator; bad queries are 400s', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeClient(admin);
    const b = await makeClient(admin);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await insertSuggestion(tenant, i < 3 ? a.client_id : b.client_id, { created_at: new Date(Date.now() - (10 - i) * 60_000), generator_key: i === 4 ? 'whitespace' : 'renewal' }));
    const page1 = await admin.get(`${BASE}?limit=2`);
    expect(page1.statusCode, page1.body).toBe(200);
    expect(page1.json().data.map((s: SuggestionJson) => s.suggestion_id)).toEqual([ids[4], ids[3]]);
    expect(page1.json().pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: false });
    const page3 = (await admin.get(`${BASE}?limit=2&page=3`)).json();
    expect(page3.data.map((s: SuggestionJson) => s.suggestion_id)).toEqual([ids[0]]);
    expect((await list(admin, `&client_id=${a.client_id}`)).map((s) => s.suggestion_id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await list(admin, '&generator_key=whitespace')).map((s) => s.suggestion_id)).toEqual([ids[4]]);
    expect(await list(admin, '&status=accepted')).toEqual([]);
    expectError(await admin.get(`${BASE}?limit=101`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}?status=archived`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}?client_id=nope`), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${BASE}?sort=title`), 400, 'VALIDATION_ERROR');
  });

  it('filters by updated_since', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const old = await insertSuggestion(tenant, client.client_id);
    const fresh = await insertSuggestion(tenant, client.client_id);
    await t.database.db.updateTable('opportunity_suggestions').set({ updated_at: new Date('2026-01-01T00:00:00Z') }).where('suggestion_id', '=', old).execute();
    expect((await list(admin, '&updated_since=2026-06-01T00:00:00Z')).map((s) => s.suggestion_id)).toEqual([fresh]);
  });
});

describe('accepting a suggestion', () => {
  it('creates the prefilled opportunity in the same transaction as the status change; a second accept is a 409', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Renew Me' });
    const line = await makeFixedLine(admin, { base_rate_cents: 250_000 });
    const contract = await makeContract(admin, client.client_id, { end_date: dayFromToday(45), contract_name: 'Helpdesk', lines: [line] });
    await generate(admin);
    const [s] = await list(admin);
    const before = Date.now();
    const res = await admin.post(`${BASE}/${s!.suggestion_id}/accept`, {});
    expect(res.statusCode, res.body).toBe(201);
    const o = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/opportunities/${o.opportunity_id}`);
    expect(o).toMatchObject({
      client_id: client.client_id, title: `Renew Helpdesk (ends ${dayFromToday(45)})`, opportunity_type: 'renewal', status: 'open', stage: 'identified', confidence: 'medium',
      owner_id: adminUserId, mrr_cents: 250_000, nrr_cents: 0, hardware_cents: 0, currency_code: 'USD',
      next_action: 'Start the renewal conversation', generator_key: 'renewal', suggestion_id: s!.suggestion_id,
    });
    expect(o.generator_context).toEqual(s!.evidence);
    expect(o.generator_context.client_contract_id).toBe(contract.client_contract_id);
    const due = Date.parse(o.next_action_due);
    expect(due).toBeGreaterThanOrEqual(before + SEVEN_DAYS - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + SEVEN_DAYS + 1000);
    expect((await eventsOf(t, tenant, o.opportunity_id)).map((e) => e.event_type)).toEqual(['opportunity.created']);
    const [accepted] = await list(admin, '&status=accepted');
    expect(accepted).toMatchObject({ suggestion_id: s!.suggestion_id, status: 'accepted', created_opportunity_id: o.opportunity_id });
    expect(await list(admin)).toEqual([]);

    const again = await admin.post(`${BASE}/${s!.suggestion_id}/accept`, {});
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toMatch(/already accepted/);
    expectError(await admin.post(`${BASE}/${s!.suggestion_id}/dismiss`, {}), 409, 'CONFLICT');
    expectError(await admin.post(`${BASE}/${s!.suggestion_id}/snooze`, { snoozed_until: new Date(Date.now() + 86_400_000).toISOString() }), 409, 'CONFLICT');
    const opps = await t.database.db.selectFrom('opportunities').select('opportunity_id').where('tenant', '=', tenant).execute();
    expect(opps).toHaveLength(1);
  });

  it('takes the overrides of the body; a bad reference is a 400 naming the field and changes nothing', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    const id = await insertSuggestion(tenant, client.client_id, { generator_key: 'tm_conversion', mrr_cents: 90_000 });
    const bad = await admin.post(`${BASE}/${id}/accept`, { contact_id: randomId() });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.json().error.message).toMatch(/body\.contact_id/);
    expectError(await admin.post(`${BASE}/${id}/accept`, { owner_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${id}/accept`, { currency_code: 'XYZ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${id}/accept`, { stage: 'verbal' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${id}/accept`, { next_action_due: 'tomorrow' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${id}/accept`, { mrr_cents: -1 }), 400, 'VALIDATION_ERROR');
    expect(await t.database.db.selectFrom('opportunities').select('opportunity_id').where('tenant', '=', tenant).execute()).toEqual([]);
    expect((await list(admin))[0]).toMatchObject({ suggestion_id: id, status: 'pending' });

    const due = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const res = await admin.post(`${BASE}/${id}/accept`, {
      title: 'Managed agreement', owner_id: manager.userId, mrr_cents: 80_000, nrr_cents: 5_000, hardware_cents: 7_000, currency_code: 'eur',
      expected_close_date: '2027-03-31', next_action: 'Send the comparison', next_action_due: due,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      title: 'Managed agreement', opportunity_type: 'expansion', owner_id: manager.userId, mrr_cents: 80_000, nrr_cents: 5_000, hardware_cents: 7_000,
      currency_code: 'EUR', expected_close_date: '2027-03-31', next_action: 'Send the comparison', next_action_due: due, generator_key: 'tm_conversion',
    });
  });

  it('maps each generator to its deal type and first next action', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const cases: [GeneratorKey, string, string][] = [
      ['renewal', 'renewal', 'Start the renewal conversation'],
      ['tm_conversion', 'expansion', 'Review the T&M comparison with the client'],
      ['whitespace', 'expansion', 'Discuss the missing service category'],
      ['asset_aging', 'project', 'Scope the asset refresh'],
      ['inbound-lead', 'new_logo', 'Follow up on the inbound enquiry'],
    ];
    for (const [generator_key, type, action] of cases) {
      const id = await insertSuggestion(tenant, client.client_id, { generator_key, evidence: { generator: generator_key } });
      const res = await admin.post(`${BASE}/${id}/accept`);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data).toMatchObject({ opportunity_type: type, next_action: action, generator_key, generator_context: { generator: generator_key }, suggestion_id: id });
    }
  });

  it('two concurrent accepts make one opportunity (the suggestion row is locked)', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const id = await insertSuggestion(tenant, client.client_id);
    const results = await Promise.all([admin.post(`${BASE}/${id}/accept`, {}), admin.post(`${BASE}/${id}/accept`, {})]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const opps = await t.database.db.selectFrom('opportunities').select(['opportunity_id', 'suggestion_id']).where('tenant', '=', tenant).execute();
    expect(opps).toEqual([{ opportunity_id: results.find((r) => r.statusCode === 201)!.json().data.opportunity_id, suggestion_id: id }]);
  });
});

describe('dismissing and snoozing', () => {
  it('dismiss is final: listed only as dismissed, idempotent, and accept or snooze after it is a 409', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const id = await insertSuggestion(tenant, client.client_id);
    const res = await admin.post(`${BASE}/${id}/dismiss`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ suggestion_id: id, status: 'dismissed', snoozed_until: null });
    expect(await list(admin)).toEqual([]);
    expect((await list(admin, '&status=dismissed')).map((s) => s.suggestion_id)).toEqual([id]);
    expect((await admin.post(`${BASE}/${id}/dismiss`, {})).json().data.status).toBe('dismissed');
    const accept = await admin.post(`${BASE}/${id}/accept`, {});
    expectError(accept, 409, 'CONFLICT');
    expect(accept.json().error.message).toMatch(/dismissed/);
    expectError(await admin.post(`${BASE}/${id}/snooze`, { snoozed_until: new Date(Date.now() + 86_400_000).toISOString() }), 409, 'CONFLICT');
    expectError(await admin.post(`${BASE}/${id}/dismiss`, { reason: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('snooze hides the suggestion until its date; a date not in the future is a 400 naming the field', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const id = await insertSuggestion(tenant, client.client_id);
    for (const snoozed_until of [new Date(Date.now() - 60_000).toISOString(), '2000-01-01T00:00:00Z']) {
      const res = await admin.post(`${BASE}/${id}/snooze`, { snoozed_until });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toMatch(/body\.snoozed_until/);
    }
    expectError(await admin.post(`${BASE}/${id}/snooze`, { snoozed_until: 'next week' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${BASE}/${id}/snooze`, {}), 400, 'VALIDATION_ERROR');
    const until = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const res = await admin.post(`${BASE}/${id}/snooze`, { snoozed_until: until });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'snoozed', snoozed_until: until });
    expect(await list(admin)).toEqual([]);
    expect((await list(admin, '&status=snoozed')).map((s) => s.suggestion_id)).toEqual([id]);
    // Once the date has passed (moved back in the database here), it is pending again.
    await t.database.db.updateTable('opportunity_suggestions').set({ snoozed_until: new Date(Date.now() - 1000) }).where('tenant', '=', tenant).where('suggestion_id', '=', id).execute();
    expect((await list(admin)).map((s) => [s.suggestion_id, s.status])).toEqual([[id, 'pending']]);
    expect(await list(admin, '&status=snoozed')).toEqual([]);
    // A snoozed suggestion can still be accepted.
    expect((await admin.post(`${BASE}/${id}/accept`, {})).statusCode).toBe(201);
  });

  it('suggestion snooze returning after its date (injected clock)', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const client = await makeClient(admin);
    let clock = Date.parse('2031-05-01T09:00:00.000Z');
    const service = createSuggestionsService({ db: t.database.db, now: () => new Date(clock) });
    const actor = actorOf(tenant, adminUserId);
    const id = await insertSuggestion(tenant, client.client_id, { created_at: new Date(clock - 1000) });
    const pending = async () => (await service.list(actor, {})).data.map((s) => [s.suggestion_id, s.status]);
    expect(await pending()).toEqual([[id, 'pending']]);
    const until = new Date(clock + 2 * 86_400_000);
    expect(await service.snooze(actor, id, { snoozed_until: until.toISOString() })).toMatchObject({ status: 'snoozed', snoozed_until: until.toISOString() });
    expect(await pending()).toEqual([]);
    clock += 86_400_000;
    expect(await pending()).toEqual([]);
    expect((await service.list(actor, { status: 'snoozed' })).data.map((s) => s.suggestion_id)).toEqual([id]);
    await expect(service.snooze(actor, id, { snoozed_until: new Date(clock - 1).toISOString() })).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/snoozed_until/) });
    clock = until.getTime();
    expect(await pending()).toEqual([[id, 'pending']]);
    expect((await service.list(actor, { status: 'snoozed' })).data).toEqual([]);
    const o = await service.accept(actor, id, {});
    // The next action falls due a week after the (injected) moment of acceptance.
    expect(o.next_action_due).toBe(new Date(clock + SEVEN_DAYS).toISOString());
  });
});

describe('suggestions: authentication, permissions and ids', () => {
  it('401 without a key, 403 without the permission, 404 for unknown or foreign ids, 400 for a bad id', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const id = await insertSuggestion(tenant, client.client_id);
    const anon = anonymous(t);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const future = { snoozed_until: new Date(Date.now() + 86_400_000).toISOString() };
    const calls: [string, string, unknown?][] = [
      ['GET', BASE],
      ['POST', `${BASE}/generate`, {}],
      ['POST', `${BASE}/${id}/accept`, {}],
      ['POST', `${BASE}/${id}/dismiss`, {}],
      ['POST', `${BASE}/${id}/snooze`, future],
    ];
    for (const [method, url, body] of calls) {
      expectError(await anon.request({ method: method as 'GET', url, payload: body as object }), 401, 'UNAUTHORIZED');
      expectError(await tech.request({ method: method as 'GET', url, payload: body as object }), 403, 'FORBIDDEN');
      if (method === 'POST') expectError(await finance.request({ method: 'POST', url, payload: body as object }), 403, 'FORBIDDEN');
    }
    expect((await finance.get(BASE)).statusCode).toBe(200);

    const other = await makeTenant(t);
    for (const action of ['accept', 'dismiss', 'snooze']) {
      expectError(await admin.post(`${BASE}/${randomId()}/${action}`, action === 'snooze' ? future : {}), 404, 'NOT_FOUND');
      expectError(await other.admin.post(`${BASE}/${id}/${action}`, action === 'snooze' ? future : {}), 404, 'NOT_FOUND');
      expectError(await admin.post(`${BASE}/not-a-uuid/${action}`, action === 'snooze' ? future : {}), 400, 'VALIDATION_ERROR');
    }
    expect(await list(other.admin)).toEqual([]);
    expectError(await admin.post(`${BASE}/generate`, { force: true }), 400, 'VALIDATION_ERROR');
    expect((await list(admin))[0]).toMatchObject({ suggestion_id: id, status: 'pending' });
  });
});
