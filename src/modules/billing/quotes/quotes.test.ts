import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId, type ClientJson } from '../../../../test/client-factories.ts';
import { formatMoney } from '../pdf/pdf.money.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface Fixture {
  tenant: string;
  admin: Api;
  finance: Api;
  client: ClientJson;
  nyc: string;
  endpoint: string;
  laptop: string;
}

/** A tenant with a client taxed at 8.875 % by default, a monthly service (USD 120.00, EUR 110.00) and a product (USD 999.00). */
async function setup(): Promise<Fixture> {
  const { tenant, admin } = await makeTenant(t);
  const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
  const client = await makeClient(admin, { client_name: 'Globex', billing_cycle: 'quarterly' });
  const rate = await admin.post('/api/v1/tax-rates', { name: 'NY Sales', percentage: 8.875 });
  expect(rate.statusCode, rate.body).toBe(201);
  const nyc = rate.json().data.tax_rate_id as string;
  expect((await admin.put(`/api/v1/clients/${client.client_id}/tax-settings`, { default_tax_rate_id: nyc })).statusCode).toBe(200);
  const typeOf = async (name: string) => (await admin.get(`/api/v1/service-types?search=${name}`)).json().data[0].service_type_id as string;
  const service = await admin.post('/api/v1/services', {
    custom_service_type_id: await typeOf('Cloud'), service_name: 'Managed endpoint', billing_method: 'fixed', unit_of_measure: 'device', default_rate: 12000, prices: [{ currency_code: 'EUR', rate: 11000 }],
  });
  expect(service.statusCode, service.body).toBe(201);
  const product = await admin.post('/api/v1/products', { custom_service_type_id: await typeOf('Hardware'), service_name: 'Laptop', unit_of_measure: 'each', default_rate: 99900 });
  expect(product.statusCode, product.body).toBe(201);
  return { tenant, admin, finance, client, nyc, endpoint: service.json().data.service_id, laptop: product.json().data.service_id };
}

async function makeQuote(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/api/v1/quotes', { title: 'Managed services proposal', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const line = (description: string, quantity: number, unit: number, extra: Record<string, unknown> = {}) => ({ description, quantity, unit_price_cents: unit, ...extra });

describe('quotes', () => {
  it('creates a numbered draft with priced items: exact half-even lines, totals equal to the lines, the mrr / nrr / hardware split', async () => {
    const f = await setup();
    const res = await f.finance.post('/api/v1/quotes', {
      client_id: f.client.client_id,
      title: 'Managed services proposal',
      description: 'Thank you for the opportunity.',
      issue_date: '2026-11-02',
      items: [
        line('Cables', 1.5, 3), // 4.5 → 4; tax 0.355 → 0
        line('Labels', 0.5, 800), // 400; tax 35.5 → 36
        line('Cable ties', 1.5, 800), // 1200; tax 106.5 → 106
        { service_id: f.endpoint, quantity: 10, is_recurring: true }, // 120000 monthly; tax 10650
        { service_id: f.laptop, quantity: 2 }, // product 199800; tax 17732.25 → 17732
        line('Offsite backup', 1, 60000, { is_recurring: true, billing_frequency: 'annually', tax_rate_id: null }), // mrr 5000
        line('Support block', 1, 10001, { is_recurring: true, billing_frequency: 'quarterly', tax_rate_id: null }), // mrr 3333.67 → 3334
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/quotes/${q.quote_id}`);
    expect(res.headers.etag).toBeDefined();
    expect(q).toMatchObject({
      quote_number: 'Q-0001', client_id: f.client.client_id, client_name: 'Globex', title: 'Managed services proposal', currency_code: 'USD',
      issue_date: '2026-11-02', valid_until: '2026-12-02', status: 'draft',
      subtotal_cents: 391405, tax_cents: 28524, total_cents: 419929, mrr_cents: 128334, nrr_cents: 1604, hardware_cents: 199800,
      sent_at: null, accepted_at: null, rejected_at: null, converted_contract_id: null,
    });
    expect(q.items.map((i: Record<string, unknown>) => [i.description, i.quantity, i.unit_price_cents, i.total_cents, i.tax_cents, i.tax_percentage, i.item_kind, i.billing_frequency])).toEqual([
      ['Cables', 1.5, 3, 4, 0, 8.875, 'service', null],
      ['Labels', 0.5, 800, 400, 36, 8.875, 'service', null],
      ['Cable ties', 1.5, 800, 1200, 106, 8.875, 'service', null],
      ['Managed endpoint', 10, 12000, 120000, 10650, 8.875, 'service', 'monthly'],
      ['Laptop', 2, 99900, 199800, 17732, 8.875, 'product', null],
      ['Offsite backup', 1, 60000, 60000, 0, 0, 'service', 'annually'],
      ['Support block', 1, 10001, 10001, 0, 0, 'service', 'quarterly'],
    ]);
    expect(q.items[0]).toMatchObject({ tax_rate_id: f.nyc, tax_rate_name: 'NY Sales', service_id: null });
    expect(q.items[3]).toMatchObject({ service_id: f.endpoint, service_name: 'Managed endpoint', is_recurring: true });
    expect(q.items[5].tax_rate_id).toBeNull();
    const sum = (k: string) => q.items.reduce((s: number, i: Record<string, number>) => s + i[k]!, 0);
    expect([sum('total_cents'), sum('tax_cents')]).toEqual([q.subtotal_cents, q.tax_cents]);

    const second = await makeQuote(f.finance, { client_id: f.client.client_id });
    expect(second).toMatchObject({ quote_number: 'Q-0002', issue_date: new Date().toISOString().slice(0, 10), items: [], total_cents: 0, mrr_cents: 0 });
    const today = new Date();
    expect(second.valid_until).toBe(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 30)).toISOString().slice(0, 10));
    expect((await eventsOf(t, f.tenant, q.quote_id)).map((e) => [e.event_type, e.payload.quote_number])).toEqual([['quote.created', 'Q-0001']]);
    const got = await f.admin.get(`/api/v1/quotes/${q.quote_id}`);
    expect(got.json().data).toEqual(q);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('adds, changes and removes items of a draft; prices default from the catalogue in the quote currency; totals follow every write', async () => {
    const f = await setup();
    const q = await makeQuote(f.finance, { client_id: f.client.client_id, currency_code: 'eur' });
    expect(q.currency_code).toBe('EUR');
    const add = await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, { service_id: f.endpoint, quantity: 3, is_recurring: true, billing_frequency: 'quarterly' });
    expect(add.statusCode, add.body).toBe(201);
    const endpoint = add.json().data;
    expect(add.headers.location).toBe(`/api/v1/quotes/${q.quote_id}/items/${endpoint.item_id}`);
    expect(endpoint).toMatchObject({ description: 'Managed endpoint', unit_price_cents: 11000, total_cents: 33000, tax_cents: 2929, item_kind: 'service', billing_frequency: 'quarterly', display_order: 0 });
    // The laptop has no EUR price and its default_rate is in USD.
    const noPrice = await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, { service_id: f.laptop, quantity: 1 });
    expectError(noPrice, 400, 'VALIDATION_ERROR');
    expect(noPrice.json().error.message).toContain('body.unit_price_cents');
    const laptop = (await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, { service_id: f.laptop, quantity: 1, unit_price_cents: 90000, tax_rate_id: null })).json().data;
    expect(laptop).toMatchObject({ item_kind: 'product', total_cents: 90000, tax_cents: 0, display_order: 1 });
    let now = (await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).json().data;
    expect(now).toMatchObject({ subtotal_cents: 123000, tax_cents: 2929, total_cents: 125929, mrr_cents: 11000, nrr_cents: 0, hardware_cents: 90000 });

    const changed = await f.finance.put(`/api/v1/quotes/${q.quote_id}/items/${endpoint.item_id}`, { quantity: 2.5, billing_frequency: 'annually' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ quantity: 2.5, total_cents: 27500, tax_cents: 2441, billing_frequency: 'annually', tax_rate_id: f.nyc }); // 2440.625 → 2441
    expectError(await f.finance.put(`/api/v1/quotes/${q.quote_id}/items/${endpoint.item_id}`, { quantity: 3 }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const oneOff = await f.finance.put(`/api/v1/quotes/${q.quote_id}/items/${endpoint.item_id}`, { is_recurring: false });
    expect(oneOff.json().data).toMatchObject({ is_recurring: false, billing_frequency: null });
    now = (await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).json().data;
    expect(now).toMatchObject({ subtotal_cents: 117500, tax_cents: 2441, total_cents: 119941, mrr_cents: 0, nrr_cents: 27500, hardware_cents: 90000 });
    expect((await f.finance.get(`/api/v1/quotes/${q.quote_id}/items`)).json().data.map((i: { item_id: string }) => i.item_id)).toEqual([endpoint.item_id, laptop.item_id]);
    expect((await f.finance.get(`/api/v1/quotes/${q.quote_id}/items/${laptop.item_id}`)).json().data).toEqual(laptop);

    expect((await f.finance.delete(`/api/v1/quotes/${q.quote_id}/items/${laptop.item_id}`)).statusCode).toBe(204);
    expectError(await f.finance.get(`/api/v1/quotes/${q.quote_id}/items/${laptop.item_id}`), 404, 'NOT_FOUND');
    expectError(await f.finance.delete(`/api/v1/quotes/${q.quote_id}/items/${laptop.item_id}`), 404, 'NOT_FOUND');
    now = (await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).json().data;
    expect(now).toMatchObject({ subtotal_cents: 27500, tax_cents: 2441, total_cents: 29941, hardware_cents: 0 });

    // An item of another quote is not this quote's.
    const other = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('X', 1, 1)] });
    expectError(await f.finance.put(`/api/v1/quotes/${q.quote_id}/items/${other.items[0].item_id}`, { quantity: 2 }), 404, 'NOT_FOUND');
    // Linking an item to a catalogue item takes its name, kind and price (in the quote currency) unless the body says otherwise.
    const linked = await f.finance.put(`/api/v1/quotes/${other.quote_id}/items/${other.items[0].item_id}`, { service_id: f.endpoint });
    expect(linked.json().data).toMatchObject({ description: 'Managed endpoint', service_name: 'Managed endpoint', unit_price_cents: 12000, total_cents: 12000, item_kind: 'service' });
    expect((await f.finance.get(`/api/v1/quotes/${other.quote_id}`)).json().data).toMatchObject({ subtotal_cents: 12000, tax_cents: 1065, nrr_cents: 12000 });
    // The currency is fixed while items exist.
    expectError(await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { currency_code: 'USD' }), 409, 'CONFLICT');
    const renamed = await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { title: 'Renewal', valid_until: '2099-01-01' });
    expect(renamed.json().data).toMatchObject({ title: 'Renewal', valid_until: '2099-01-01' });
    expect((await eventsOf(t, f.tenant, q.quote_id)).map((e) => [e.event_type, e.payload.item_change ?? e.payload.changed_fields ?? null])).toEqual([
      ['quote.created', null],
      ['quote.updated', 'added'],
      ['quote.updated', 'added'],
      ['quote.updated', 'updated'],
      ['quote.updated', 'updated'],
      ['quote.updated', 'removed'],
      ['quote.updated', ['title', 'valid_until']],
    ]);
  });

  it('draft → sent → accepted | rejected; each illegal move is a 409 naming the current status; only drafts change', async () => {
    const f = await setup();
    const q = await makeQuote(f.finance, { client_id: f.client.client_id });
    const send = (id: string) => f.finance.post(`/api/v1/quotes/${id}/send`);
    const empty = await send(q.quote_id);
    expectError(empty, 422, 'UNPROCESSABLE');
    expect(empty.json().error.message).toContain('at least one item');
    expectError(await f.finance.post(`/api/v1/quotes/${q.quote_id}/accept`), 409, 'CONFLICT');
    const rejectDraft = await f.finance.post(`/api/v1/quotes/${q.quote_id}/reject`, {});
    expectError(rejectDraft, 409, 'CONFLICT');
    expect(rejectDraft.json().error.message).toBe('Quote Q-0001 is draft; only a sent or expired quote can be rejected');
    const item = (await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, line('Onboarding', 1, 50000))).json().data;
    const sent = await send(q.quote_id);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data).toMatchObject({ status: 'sent' });
    expect(sent.json().data.sent_at).not.toBeNull();

    for (const r of [
      await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { title: 'Changed' }),
      await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, line('More', 1, 1)),
      await f.finance.put(`/api/v1/quotes/${q.quote_id}/items/${item.item_id}`, { quantity: 2 }),
      await f.finance.delete(`/api/v1/quotes/${q.quote_id}/items/${item.item_id}`),
    ]) {
      expectError(r, 409, 'CONFLICT');
      expect(r.json().error.message).toBe('Quote Q-0001 is sent; only a draft can be edited');
    }
    const del = await f.finance.delete(`/api/v1/quotes/${q.quote_id}`);
    expectError(del, 409, 'CONFLICT');
    expect(del.json().error.message).toBe('Quote Q-0001 is sent; only a draft can be deleted');
    const again = await send(q.quote_id);
    expectError(again, 409, 'CONFLICT');
    expect(again.json().error.message).toBe('Quote Q-0001 is sent; only a draft quote can be sent');

    const accepted = await f.finance.post(`/api/v1/quotes/${q.quote_id}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data.status).toBe('accepted');
    expect(accepted.json().data.accepted_at).not.toBeNull();
    for (const [r, message] of [
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/accept`), 'Quote Q-0001 is accepted; only a sent quote can be accepted'],
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/reject`, { reason: 'late' }), 'Quote Q-0001 is accepted; only a sent or expired quote can be rejected'],
      [await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { title: 'x' }), 'Quote Q-0001 is accepted; only a draft can be edited'],
    ] as const) {
      expectError(r, 409, 'CONFLICT');
      expect(r.json().error.message).toBe(message);
    }
    expect((await eventsOf(t, f.tenant, q.quote_id)).map((e) => e.event_type)).toEqual(['quote.created', 'quote.updated', 'quote.sent', 'quote.accepted']);

    const r = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Audit', 1, 1000)] });
    await send(r.quote_id);
    const rejected = await f.finance.post(`/api/v1/quotes/${r.quote_id}/reject`, { reason: '  Too expensive  ' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().data).toMatchObject({ status: 'rejected', rejection_reason: 'Too expensive' });
    expect(rejected.json().data.rejected_at).not.toBeNull();
    expectError(await f.finance.post(`/api/v1/quotes/${r.quote_id}/accept`), 409, 'CONFLICT');
    expectError(await f.finance.post(`/api/v1/quotes/${r.quote_id}/convert`, {}), 409, 'CONFLICT');
    expect((await eventsOf(t, f.tenant, r.quote_id)).map((e) => e.event_type)).toEqual(['quote.created', 'quote.sent', 'quote.rejected']);

    const d = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Audit', 1, 1000)] });
    expect((await f.finance.delete(`/api/v1/quotes/${d.quote_id}`)).statusCode).toBe(204);
    expectError(await f.finance.get(`/api/v1/quotes/${d.quote_id}`), 404, 'NOT_FOUND');
    expect(await t.database.db.selectFrom('quote_items').select('item_id').where('quote_id', '=', d.quote_id).execute()).toEqual([]);
    expect((await eventsOf(t, f.tenant, d.quote_id)).map((e) => e.event_type)).toEqual(['quote.created', 'quote.deleted']);
  });

  it('a sent quote past valid_until is expired in every read and list filter: it cannot be accepted, it can be rejected', async () => {
    const f = await setup();
    const q = await makeQuote(f.finance, { client_id: f.client.client_id, issue_date: '2020-01-01', items: [line('Audit', 1, 1000)] });
    expect(q).toMatchObject({ valid_until: '2020-01-31', status: 'draft' });
    const live = await makeQuote(f.finance, { client_id: f.client.client_id, issue_date: '2020-01-01', valid_until: '2099-12-31', items: [line('Audit', 1, 1000)] });
    const sent = await f.finance.post(`/api/v1/quotes/${q.quote_id}/send`);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data.status).toBe('expired');
    await f.finance.post(`/api/v1/quotes/${live.quote_id}/send`);
    expect((await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).json().data.status).toBe('expired');
    const accept = await f.finance.post(`/api/v1/quotes/${q.quote_id}/accept`);
    expectError(accept, 409, 'CONFLICT');
    expect(accept.json().error.message).toBe('Quote Q-0001 is expired; only a sent quote can be accepted');
    const ids = async (qs: string) => (await f.finance.get(`/api/v1/quotes${qs}`)).json().data.map((x: { quote_id: string }) => x.quote_id);
    expect(await ids('?status=expired')).toEqual([q.quote_id]);
    expect(await ids('?status=sent')).toEqual([live.quote_id]);
    const rejected = await f.finance.post(`/api/v1/quotes/${q.quote_id}/reject`);
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().data).toMatchObject({ status: 'rejected', rejection_reason: null });
    expect(await ids('?status=expired')).toEqual([]);
    expect(await ids('?status=rejected')).toEqual([q.quote_id]);
  });

  it('lists with filters, search and sorts', async () => {
    const f = await setup();
    const beta = await makeClient(f.admin, { client_name: 'Beta' });
    const a = await makeQuote(f.finance, { client_id: f.client.client_id, title: 'Firewall refresh', issue_date: '2026-03-01', items: [line('FW', 1, 500)] });
    const b = await makeQuote(f.finance, { client_id: beta.client_id, title: 'Backup plan', issue_date: '2026-05-01', items: [line('B', 1, 100)] });
    const c = await makeQuote(f.finance, { client_id: f.client.client_id, title: 'Onboarding', issue_date: '2026-04-01', valid_until: '2026-04-02', items: [line('O', 1, 900)] });
    const ids = async (qs: string) => (await f.finance.get(`/api/v1/quotes${qs}`)).json().data.map((x: { quote_id: string }) => x.quote_id);
    expect(await ids('')).toEqual([b.quote_id, c.quote_id, a.quote_id]);
    expect(await ids(`?client_id=${f.client.client_id}`)).toEqual([c.quote_id, a.quote_id]);
    expect(await ids('?from=2026-03-15&to=2026-04-30')).toEqual([c.quote_id]);
    expect(await ids('?search=FIREWALL')).toEqual([a.quote_id]);
    expect(await ids('?search=q-0002')).toEqual([b.quote_id]);
    expect(await ids('?sort=total_cents&order=asc')).toEqual([b.quote_id, a.quote_id, c.quote_id]);
    expect(await ids('?sort=valid_until&order=asc')).toEqual([a.quote_id, c.quote_id, b.quote_id]); // 03-31, 04-02, 05-31
    expect(await ids('?sort=quote_number&order=asc')).toEqual([a.quote_id, b.quote_id, c.quote_id]);
    expect(await ids('?status=draft')).toHaveLength(3);
    const first = (await f.finance.get('/api/v1/quotes?limit=1')).json();
    expect(first.pagination).toMatchObject({ total: 3, hasNext: true });
    expect(first.data[0].items).toBeUndefined();
    const since = new Date().toISOString();
    await f.finance.put(`/api/v1/quotes/${a.quote_id}`, { title: 'Firewall refresh 2' });
    expect(await ids(`?updated_since=${encodeURIComponent(since)}`)).toEqual([a.quote_id]);
    expectError(await f.finance.get('/api/v1/quotes?from=2026-05-01&to=2026-04-01'), 400, 'VALIDATION_ERROR');
    expectError(await f.finance.get('/api/v1/quotes?status=lost'), 400, 'VALIDATION_ERROR');
    expectError(await f.finance.get('/api/v1/quotes?sort=title'), 400, 'VALIDATION_ERROR');
  });

  it('converts an accepted quote into a draft contract with a fixed line per recurring item, once', async () => {
    const f = await setup();
    const q = await makeQuote(f.finance, {
      client_id: f.client.client_id,
      title: 'Globex managed care',
      currency_code: 'EUR',
      items: [
        { service_id: f.endpoint, quantity: 2.5, is_recurring: true }, // EUR 110.00 × 2.5 = 27500 monthly
        line('Offsite backup', 1, 60000, { is_recurring: true, billing_frequency: 'annually', tax_rate_id: null }),
        line('Laptop', 1, 90000, { item_kind: 'product' }),
      ],
    });
    const convert = (api: Api, body?: unknown) => api.post(`/api/v1/quotes/${q.quote_id}/convert`, body);
    const notYet = await convert(f.finance, {});
    expectError(notYet, 409, 'CONFLICT');
    expect(notYet.json().error.message).toBe('Quote Q-0001 is draft; only an accepted quote can be converted');
    await f.finance.post(`/api/v1/quotes/${q.quote_id}/send`);
    await f.finance.post(`/api/v1/quotes/${q.quote_id}/accept`);
    // quote:update without contract:create is not enough.
    const scoped = (await makeUser(t, f.tenant, { role: 'Finance', scopes: ['quote:read', 'quote:update'] })).api;
    expectError(await convert(scoped, {}), 403, 'FORBIDDEN');
    expectError(await convert(f.finance, { start_date: '2026-02-30' }), 400, 'VALIDATION_ERROR');

    const res = await convert(f.finance, { start_date: '2026-12-01' });
    expect(res.statusCode, res.body).toBe(200);
    const { quote, contract_id, contract_line_ids } = res.json().data;
    expect(contract_line_ids).toHaveLength(2);
    expect(quote).toMatchObject({ status: 'accepted', converted_contract_id: contract_id });
    expect(quote.converted_at).not.toBeNull();

    const contract = (await f.finance.get(`/api/v1/contracts/${contract_id}`)).json().data;
    expect(contract).toMatchObject({
      client_id: f.client.client_id, contract_name: 'Globex managed care', currency_code: 'EUR', status: 'draft', start_date: '2026-12-01', billing_frequency: 'quarterly',
    });
    expect(contract.contract_lines.map((l: Record<string, unknown>) => [l.contract_line_id, l.contract_line_name, l.contract_line_type, l.billing_frequency])).toEqual([
      [contract_line_ids[0], 'Managed endpoint', 'fixed', 'monthly'],
      [contract_line_ids[1], 'Offsite backup', 'fixed', 'annually'],
    ]);
    const lineOf = async (id: string) => (await f.finance.get(`/api/v1/contract-lines/${id}`)).json().data;
    expect(await lineOf(contract_line_ids[0])).toMatchObject({
      currency_code: 'EUR', contract_count: 1, config: { base_rate_cents: 27500, enable_proration: false, billing_cycle_alignment: 'start' },
      services: [{ service_id: f.endpoint, quantity: 3 }],
    });
    expect(await lineOf(contract_line_ids[1])).toMatchObject({ config: { base_rate_cents: 60000 }, services: [] });
    const attached = (await f.finance.get(`/api/v1/contract-lines?contract_id=${contract_id}`)).json().data.map((l: { contract_line_id: string }) => l.contract_line_id);
    expect(attached.sort()).toEqual([...contract_line_ids].sort());

    expect((await eventsOf(t, f.tenant, q.quote_id)).map((e) => e.event_type).at(-1)).toBe('quote.converted');
    expect((await eventsOf(t, f.tenant, q.quote_id)).at(-1)!.payload).toMatchObject({ contract_id, contract_line_ids });
    expect((await eventsOf(t, f.tenant, contract_id)).map((e) => e.event_type)).toEqual(['contract.created', 'contract.line_attached', 'contract.line_attached']);
    expect((await eventsOf(t, f.tenant, contract_line_ids[0])).map((e) => e.event_type)).toEqual(['contract_line.created', 'contract_line.service_added']);
    expect((await eventsOf(t, f.tenant, contract_line_ids[1])).map((e) => e.event_type)).toEqual(['contract_line.created']);

    const twice = await convert(f.finance, {});
    expectError(twice, 409, 'CONFLICT');
    expect(twice.json().error.message).toContain('converted_contract_id');
    expect(twice.json().error.details).toEqual({ converted_contract_id: contract_id });

    const oneOff = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Install', 1, 1000)] });
    await f.finance.post(`/api/v1/quotes/${oneOff.quote_id}/send`);
    await f.finance.post(`/api/v1/quotes/${oneOff.quote_id}/accept`);
    const contractsBefore = (await f.finance.get('/api/v1/contracts')).json().pagination.total;
    const none = await f.finance.post(`/api/v1/quotes/${oneOff.quote_id}/convert`);
    expectError(none, 422, 'UNPROCESSABLE');
    expect(none.json().error.message).toContain('has no recurring items to put on a contract');
    expect((await f.finance.get('/api/v1/contracts')).json().pagination.total).toBe(contractsBefore);
  });

  it("client-portal admins read their own client's non-draft quotes (and PDFs) and write nothing", async () => {
    const f = await setup();
    const other = await makeClient(f.admin, { client_name: 'Initech' });
    const sent = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Audit', 1, 1000)] });
    await f.finance.post(`/api/v1/quotes/${sent.quote_id}/send`);
    const draft = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Audit', 1, 1000)] });
    const foreign = await makeQuote(f.finance, { client_id: other.client_id, items: [line('Audit', 1, 1000)] });
    await f.finance.post(`/api/v1/quotes/${foreign.quote_id}/send`);
    const portal = (await makeUser(t, f.tenant, { role: 'Client Admin', userType: 'client', clientId: f.client.client_id })).api;

    const own = await portal.get(`/api/v1/quotes/${sent.quote_id}`);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().data.items).toHaveLength(1);
    expect((await portal.get(`/api/v1/quotes/${sent.quote_id}/items`)).statusCode).toBe(200);
    expect((await portal.get(`/api/v1/quotes/${sent.quote_id}/pdf`)).statusCode).toBe(200);
    for (const id of [draft.quote_id, foreign.quote_id]) {
      expectError(await portal.get(`/api/v1/quotes/${id}`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/quotes/${id}/items`), 404, 'NOT_FOUND');
      expectError(await portal.get(`/api/v1/quotes/${id}/pdf`), 404, 'NOT_FOUND');
    }
    const list = (await portal.get('/api/v1/quotes')).json();
    expect(list.data.map((x: { quote_id: string }) => x.quote_id)).toEqual([sent.quote_id]);
    expect(list.pagination.total).toBe(1);
    expect((await portal.get(`/api/v1/quotes?client_id=${other.client_id}`)).json().data).toEqual([]);
    expect((await portal.get('/api/v1/quotes?status=draft')).json().data).toEqual([]);
    for (const r of [
      await portal.post('/api/v1/quotes', { client_id: f.client.client_id, title: 'Mine' }),
      await portal.put(`/api/v1/quotes/${sent.quote_id}`, { title: 'x' }),
      await portal.delete(`/api/v1/quotes/${sent.quote_id}`),
      await portal.post(`/api/v1/quotes/${sent.quote_id}/accept`),
      await portal.post(`/api/v1/quotes/${sent.quote_id}/reject`, {}),
      await portal.post(`/api/v1/quotes/${sent.quote_id}/items`, line('x', 1, 1)),
    ]) expectError(r, 403, 'FORBIDDEN');
  });

  it('renders the PDF inline with its number and total', async () => {
    const f = await setup();
    const q = await makeQuote(f.finance, { client_id: f.client.client_id, items: [line('Audit', 1.5, 33333), { service_id: f.endpoint, quantity: 4, is_recurring: true }] });
    const res = await f.finance.get(`/api/v1/quotes/${q.quote_id}/pdf`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('inline; filename="Q-0001.pdf"');
    expect(res.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { text } = await extractText(new Uint8Array(res.rawPayload), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Q-0001');
    expect(flat).toContain(formatMoney(q.total_cents, 'USD'));
    expect(flat).toContain('Globex');
  });

  it('400 naming the field, 401, 403 by role, 404 across tenants, 412 on a stale If-Match', async () => {
    const f = await setup();
    const base = { client_id: f.client.client_id, title: 'Proposal' };
    const otherTenant = await makeTenant(t);
    const foreignClient = await makeClient(otherTenant.admin);
    for (const [body, field] of [
      [{ ...base, title: '' }, 'body.title'],
      [{ ...base, title: '   ' }, 'body.title'],
      [{ ...base, title: 'x'.repeat(256) }, 'body.title'],
      [{ client_id: f.client.client_id }, 'body.title'],
      [{ ...base, description: 'x'.repeat(5001) }, 'body.description'],
      [{ ...base, client_id: foreignClient.client_id }, 'body.client_id'],
      [{ ...base, client_id: 'nope' }, 'body.client_id'],
      [{ ...base, currency_code: 'XYZ' }, 'body.currency_code'],
      [{ ...base, issue_date: '2026-02-30' }, 'body.issue_date'],
      [{ ...base, issue_date: '2026-05-02', valid_until: '2026-05-01' }, 'body.valid_until'],
      [{ ...base, status: 'sent' }, 'body.status'],
      [{ ...base, items: [{ quantity: 1, unit_price_cents: 1 }] }, 'body.items.0.description'],
      [{ ...base, items: [line('a', 1, 1), line('b', 0, 1)] }, 'body.items.1.quantity'],
      [{ ...base, items: [line('a', 1.00001, 1)] }, 'body.items.0.quantity'],
      [{ ...base, items: [line('a', 1, -1)] }, 'body.items.0.unit_price_cents'],
      [{ ...base, items: [line('a', 1, 1.5)] }, 'body.items.0.unit_price_cents'],
      [{ ...base, items: [{ description: 'a', quantity: 1 }] }, 'body.items.0.unit_price_cents'],
      [{ ...base, items: [{ service_id: randomId(), quantity: 1 }] }, 'body.items.0.service_id'],
      [{ ...base, items: [line('a', 1, 1), line('b', 1, 1, { tax_rate_id: randomId() })] }, 'body.items.1.tax_rate_id'],
      [{ ...base, items: [line('a', 1, 1, { billing_frequency: 'monthly' })] }, 'body.items.0.billing_frequency'],
      [{ ...base, items: [line('a', 1, 1, { is_recurring: true, billing_frequency: 'daily' })] }, 'body.items.0.billing_frequency'],
      [{ ...base, items: [{ service_id: f.laptop, quantity: 1, item_kind: 'service' }] }, 'body.items.0.item_kind'],
      [{ ...base, items: [line('a', 1, 1, { colour: 'red' })] }, 'body.items.0.colour'],
      [{ ...base, items: [line('a', 1_000_000, 1_000_000_000_000)] }, 'body.items.0.quantity'],
    ] as const) {
      const r = await f.finance.post('/api/v1/quotes', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    expectError(await f.finance.post('/api/v1/quotes', { ...base, items: Array.from({ length: 501 }, () => line('a', 1, 1)) }), 400, 'VALIDATION_ERROR');
    const q = await makeQuote(f.finance, base);
    for (const [res, field] of [
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, line('a', 1, 1, { tax_rate_id: randomId() })), 'body.tax_rate_id'],
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, { quantity: 1 }), 'body.description'],
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, { service_id: 'x', quantity: 1 }), 'body.service_id'],
      [await f.finance.put(`/api/v1/quotes/${q.quote_id}`, {}), 'body'],
      [await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { client_id: f.client.client_id }), 'body.client_id'],
      [await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { issue_date: '2099-01-01' }), 'body.issue_date'],
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/reject`, { reason: 'x'.repeat(2001) }), 'body.reason'],
      [await f.finance.post(`/api/v1/quotes/${q.quote_id}/send`, { now: true }), 'body.now'],
      [await f.finance.get('/api/v1/quotes/nope'), 'params.id'],
      [await f.finance.get(`/api/v1/quotes/${q.quote_id}/items/nope`), 'params.itemId'],
    ] as const) {
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }

    const etag = (await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).headers.etag as string;
    expect((await f.finance.get(`/api/v1/quotes/${q.quote_id}`, { 'if-none-match': etag })).statusCode).toBe(304);
    expectError(await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { title: 'New' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectError(await f.finance.delete(`/api/v1/quotes/${q.quote_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const renamed = await f.finance.put(`/api/v1/quotes/${q.quote_id}`, { title: 'New' }, { 'if-match': etag });
    expect(renamed.statusCode, renamed.body).toBe(200);

    expectError(await anonymous(t).get('/api/v1/quotes'), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, f.tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/quotes'), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, f.tenant, { role: 'Manager' })).api;
    expect((await manager.get(`/api/v1/quotes/${q.quote_id}`)).statusCode).toBe(200);
    expect((await manager.post('/api/v1/quotes', base)).statusCode).toBe(201);

    const item = (await f.finance.post(`/api/v1/quotes/${q.quote_id}/items`, line('a', 1, 1))).json().data;
    const x = otherTenant.admin;
    for (const r of [
      await x.get(`/api/v1/quotes/${q.quote_id}`),
      await x.put(`/api/v1/quotes/${q.quote_id}`, { title: 'Mine' }),
      await x.delete(`/api/v1/quotes/${q.quote_id}`),
      await x.get(`/api/v1/quotes/${q.quote_id}/items`),
      await x.post(`/api/v1/quotes/${q.quote_id}/items`, line('a', 1, 1)),
      await x.get(`/api/v1/quotes/${q.quote_id}/items/${item.item_id}`),
      await x.put(`/api/v1/quotes/${q.quote_id}/items/${item.item_id}`, { quantity: 2 }),
      await x.delete(`/api/v1/quotes/${q.quote_id}/items/${item.item_id}`),
      await x.post(`/api/v1/quotes/${q.quote_id}/send`),
      await x.post(`/api/v1/quotes/${q.quote_id}/accept`),
      await x.post(`/api/v1/quotes/${q.quote_id}/reject`, {}),
      await x.post(`/api/v1/quotes/${q.quote_id}/convert`, {}),
      await x.get(`/api/v1/quotes/${q.quote_id}/pdf`),
    ]) expectError(r, 404, 'NOT_FOUND');
    expect((await x.get('/api/v1/quotes')).json().pagination.total).toBe(0);
    expect((await f.finance.get(`/api/v1/quotes/${q.quote_id}`)).json().data).toMatchObject({ title: 'New', status: 'draft' });
  });
});
