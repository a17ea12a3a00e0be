import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, defaultProfileId, eventsOf, expectError, makeClient, randomId, tombstone } from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const fixedLine = (over: Record<string, unknown> = {}) => ({
  contract_line_name: 'Managed desktops', contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 150000 }, ...over,
});

async function makeLine(api: Api, body: Record<string, unknown> = {}): Promise<{ contract_line_id: string; currency_code: string }> {
  const res = await api.post('/api/v1/contract-lines', fixedLine(body));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function makeContract(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<{ contract_id: string; client_contract: { client_contract_id: string } }> {
  const res = await api.post('/api/v1/contracts', { client_id: clientId, start_date: '2026-01-01', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function hardwareType(api: Api): Promise<string> {
  return (await api.get('/api/v1/service-types?search=Hardware')).json().data[0].service_type_id;
}

describe('contracts', () => {
  it("a finance user creates a contract: the client's currency and cycle by default, assigned to its default profile, evented and searchable", async () => {
    const { tenant, admin } = await makeTenant(t);
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const client = await makeClient(admin, { client_name: 'Contoso Dental', billing_cycle: 'quarterly', default_currency_code: 'EUR' });
    const res = await finance.post('/api/v1/contracts', { client_id: client.client_id, contract_name: 'Contoso Managed Care', start_date: '2026-01-01' });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/contracts/${c.contract_id}`);
    expect(c).toMatchObject({
      client_id: client.client_id, client_name: 'Contoso Dental', contract_name: 'Contoso Managed Care', start_date: '2026-01-01', end_date: null,
      billing_frequency: 'quarterly', status: 'draft', currency_code: 'EUR', contract_lines: [],
      client_contract: { billing_profile_id: await defaultProfileId(admin, client.client_id), billing_profile_name: 'Contoso Dental', start_date: '2026-01-01', end_date: null, is_active: false },
    });
    expect((await eventsOf(t, tenant, c.contract_id)).map((e) => e.event_type)).toEqual(['contract.created']);
    expect((await eventsOf(t, tenant, c.client_contract.client_contract_id)).map((e) => [e.event_type, e.payload.contract_id])).toEqual([['client_contract.created', c.contract_id]]);
    const found = (await admin.get('/api/v1/search?query=contoso managed')).json().data.results.map((r: { type: string; id: string }) => `${r.type}:${r.id}`);
    expect(found).toContain(`contract:${c.contract_id}`);
    expect(found).toContain(`client_contract:${c.client_contract.client_contract_id}`);

    const active = await finance.put(`/api/v1/contracts/${c.contract_id}`, { status: 'active', end_date: '2026-12-31' });
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json().data).toMatchObject({ status: 'active', end_date: '2026-12-31', client_contract: { is_active: true, end_date: '2026-12-31' } });
    expect((await eventsOf(t, tenant, c.client_contract.client_contract_id)).map((e) => [e.event_type, e.payload.changed_fields ?? null])).toEqual([
      ['client_contract.created', null],
      ['client_contract.updated', ['end_date', 'is_active']],
    ]);
    expectError(await finance.put(`/api/v1/contracts/${c.contract_id}`, { status: 'draft' }), 422, 'UNPROCESSABLE');
    expectError(await finance.delete(`/api/v1/contracts/${c.contract_id}`), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/clients/${client.client_id}`), 409, 'CONFLICT');
    expect((await finance.put(`/api/v1/contracts/${c.contract_id}`, { status: 'terminated' })).json().data.client_contract.is_active).toBe(false);
    expectError(await finance.put(`/api/v1/contracts/${c.contract_id}`, { status: 'active' }), 422, 'UNPROCESSABLE');
    expect((await finance.delete(`/api/v1/contracts/${c.contract_id}`)).statusCode).toBe(204);
    expectError(await finance.get(`/api/v1/contracts/${c.contract_id}`), 404, 'NOT_FOUND');
    expect((await admin.get('/api/v1/search?query=contoso managed')).json().data.results).toEqual([]);
    expect((await eventsOf(t, tenant, c.contract_id)).map((e) => e.event_type)).toEqual(['contract.created', 'contract.updated', 'contract.updated', 'contract.deleted']);
  });

  it('lists with filters and sorts; dates are checked together', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeClient(admin, { client_name: 'Alpha' });
    const b = await makeClient(admin, { client_name: 'Beta' });
    await makeContract(admin, a.client_id, { contract_name: 'A 2025', start_date: '2025-01-01', end_date: '2025-12-31', status: 'expired' });
    const a26 = await makeContract(admin, a.client_id, { contract_name: 'A 2026', start_date: '2026-01-01', status: 'active' });
    await makeContract(admin, b.client_id, { contract_name: 'B open', start_date: '2026-03-01', billing_frequency: 'annually', currency_code: 'gbp' });
    const names = async (q: string) => (await admin.get(`/api/v1/contracts${q}`)).json().data.map((c: { contract_name: string }) => c.contract_name);
    expect(await names('')).toEqual(['A 2025', 'A 2026', 'B open']);
    expect(await names(`?client_id=${a.client_id}&sort=start_date&order=desc`)).toEqual(['A 2026', 'A 2025']);
    expect(await names('?status=active')).toEqual(['A 2026']);
    expect(await names('?active_on=2025-06-30')).toEqual(['A 2025']);
    expect(await names('?active_on=2026-02-01')).toEqual(['A 2026']);
    expect(await names('?billing_frequency=annually&currency_code=GBP')).toEqual(['B open']);
    expect(await names('?search=a 20&sort=end_date')).toEqual(['A 2025', 'A 2026']);
    expect((await admin.get('/api/v1/contracts?limit=1&page=2')).json().pagination).toMatchObject({ total: 3, page: 2, hasNext: true, hasPrev: true });

    const before = await admin.post('/api/v1/contracts', { client_id: a.client_id, start_date: '2026-05-01', end_date: '2026-04-30' });
    expectError(before, 400, 'VALIDATION_ERROR');
    expect(before.json().error.message).toContain('body.end_date');
    const moved = await admin.put(`/api/v1/contracts/${a26.contract_id}`, { end_date: '2026-06-30' });
    expect(moved.statusCode).toBe(200);
    const late = await admin.put(`/api/v1/contracts/${a26.contract_id}`, { start_date: '2026-07-01' });
    expectError(late, 400, 'VALIDATION_ERROR');
    expect(late.json().error.message).toContain('body.start_date');
    expect((await admin.put(`/api/v1/contracts/${a26.contract_id}`, { end_date: null })).json().data.end_date).toBeNull();
  });

  it('bad input is a 400 naming the field: foreign or unknown client, unknown currency, bad dates, unknown fields; merged clients are read-only', async () => {
    const { tenant, admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const foreignClient = await makeClient(other.admin);
    const client = await makeClient(admin);
    for (const [body, field] of [
      [{ client_id: foreignClient.client_id }, 'body.client_id'],
      [{ client_id: randomId() }, 'body.client_id'],
      [{ client_id: 'nope' }, 'body.client_id'],
      [{ client_id: client.client_id, currency_code: 'ABC' }, 'body.currency_code'],
      [{ client_id: client.client_id, start_date: '2026-02-30' }, 'body.start_date'],
      [{ client_id: client.client_id, status: 'published' }, 'body.status'],
      [{ client_id: client.client_id, billing_frequency: 'daily' }, 'body.billing_frequency'],
      [{ client_id: client.client_id, billing_profile_id: randomId() }, 'body.billing_profile_id'],
      [{ client_id: client.client_id, prices: [] }, 'body.prices'],
      [{}, 'body.client_id'],
    ] as const) {
      const r = await admin.post('/api/v1/contracts', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message).toContain(field);
    }
    const merged = await makeClient(admin);
    await tombstone(t, tenant, merged.client_id, client.client_id);
    expectError(await admin.post('/api/v1/contracts', { client_id: merged.client_id }), 409, 'CONFLICT');
    const c = await makeContract(admin, client.client_id);
    expectError(await admin.put(`/api/v1/contracts/${c.contract_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/contracts/${c.contract_id}`, { client_id: foreignClient.client_id }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/contracts?status=open'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/contracts?active_on=yesterday'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/contracts/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expect((await admin.post('/api/v1/contracts', { client_id: client.client_id })).json().data.start_date).toBe(new Date().toISOString().slice(0, 10));
  });

  it('401 without a key, 403 without contract permissions, 404 across tenants; a client-portal admin sees only its own client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const mine = await makeClient(admin, { client_name: 'Mine' });
    const theirs = await makeClient(admin, { client_name: 'Theirs' });
    const c1 = await makeContract(admin, mine.client_id, { contract_name: 'Mine contract' });
    const c2 = await makeContract(admin, theirs.client_id, { contract_name: 'Theirs contract' });
    const line1 = await makeLine(admin, { contract_line_name: 'Mine line' });
    await makeLine(admin, { contract_line_name: 'Unattached line' });
    expect((await admin.post(`/api/v1/contracts/${c1.contract_id}/contract-lines`, { contract_line_id: line1.contract_line_id })).statusCode).toBe(201);

    expectError(await anonymous(t).get('/api/v1/contracts'), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post('/api/v1/contract-lines', fixedLine()), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.get('/api/v1/contracts'), 403, 'FORBIDDEN');
    expectError(await tech.get(`/api/v1/contract-lines/${line1.contract_line_id}`), 403, 'FORBIDDEN');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.get(`/api/v1/contracts/${c1.contract_id}`)).statusCode).toBe(200);

    const portal = (await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: mine.client_id })).api;
    expect((await portal.get('/api/v1/contracts')).json().data.map((c: { contract_name: string }) => c.contract_name)).toEqual(['Mine contract']);
    expect((await portal.get(`/api/v1/contracts?client_id=${theirs.client_id}`)).json().data).toEqual([]);
    expect((await portal.get(`/api/v1/contracts/${c1.contract_id}`)).statusCode).toBe(200);
    expectError(await portal.get(`/api/v1/contracts/${c2.contract_id}`), 404, 'NOT_FOUND');
    expect((await portal.get('/api/v1/contract-lines')).json().data.map((l: { contract_line_name: string }) => l.contract_line_name)).toEqual(['Mine line']);
    expect((await portal.get(`/api/v1/contract-lines/${line1.contract_line_id}/services`)).statusCode).toBe(200);
    expectError(await portal.post('/api/v1/contracts', { client_id: mine.client_id }), 403, 'FORBIDDEN');
    expectError(await portal.put(`/api/v1/contracts/${c1.contract_id}`, { contract_name: 'x' }), 403, 'FORBIDDEN');
    const portalSearch = (await portal.get('/api/v1/search?query=contract')).json().data.results.map((r: { id: string }) => r.id);
    expect(portalSearch).toContain(c1.contract_id);
    expect(portalSearch).not.toContain(c2.contract_id);

    const other = await makeTenant(t);
    for (const r of [
      await other.admin.get(`/api/v1/contracts/${c1.contract_id}`),
      await other.admin.put(`/api/v1/contracts/${c1.contract_id}`, { contract_name: 'x' }),
      await other.admin.delete(`/api/v1/contracts/${c2.contract_id}`),
      await other.admin.post(`/api/v1/contracts/${c1.contract_id}/contract-lines`, { contract_line_id: line1.contract_line_id }),
      await other.admin.delete(`/api/v1/contracts/${c1.contract_id}/contract-lines/${line1.contract_line_id}`),
      await other.admin.get(`/api/v1/contract-lines/${line1.contract_line_id}`),
      await other.admin.put(`/api/v1/contract-lines/${line1.contract_line_id}`, { contract_line_name: 'x' }),
      await other.admin.delete(`/api/v1/contract-lines/${line1.contract_line_id}`),
      await other.admin.get(`/api/v1/contract-lines/${line1.contract_line_id}/services`),
    ]) expectError(r, 404, 'NOT_FOUND');
    expect((await other.admin.get('/api/v1/contracts')).json().pagination.total).toBe(0);
    expect((await other.admin.get('/api/v1/contract-lines')).json().pagination.total).toBe(0);
    const otherLine = await makeLine(other.admin);
    const cross = await admin.post(`/api/v1/contracts/${c1.contract_id}/contract-lines`, { contract_line_id: otherLine.contract_line_id });
    expectError(cross, 400, 'VALIDATION_ERROR');
    expect(cross.json().error.message).toContain('body.contract_line_id');
  });
});

describe('attaching and detaching lines', () => {
  it("attaches in the contract's currency with an optional custom rate; twice is a 409; detaching what is not attached is a 404", async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const c = await makeContract(admin, client.client_id, { status: 'active' });
    const a = await makeLine(admin, { contract_line_name: 'B line' });
    const b = await makeLine(admin, { contract_line_name: 'A line', contract_line_type: 'hourly', config: { hourly_rate_cents: 12500 } });
    const eur = await makeLine(admin, { contract_line_name: 'Euro line', currency_code: 'EUR' });
    const off = await makeLine(admin, { contract_line_name: 'Off line', is_active: false });

    const first = await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: a.contract_line_id, custom_rate_cents: 140000 });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data.contract_lines).toEqual([
      { contract_line_id: a.contract_line_id, contract_line_name: 'B line', contract_line_type: 'fixed', billing_frequency: 'monthly', is_active: true, custom_rate_cents: 140000, display_order: 0 },
    ]);
    const second = await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: b.contract_line_id });
    expect(second.json().data.contract_lines.map((l: { contract_line_name: string; display_order: number }) => [l.contract_line_name, l.display_order])).toEqual([['B line', 0], ['A line', 1]]);
    expectError(await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: a.contract_line_id }), 409, 'CONFLICT');
    const wrongCurrency = await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: eur.contract_line_id });
    expectError(wrongCurrency, 422, 'UNPROCESSABLE');
    expect(wrongCurrency.json().error.message).toContain('EUR');
    expectError(await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: off.contract_line_id }), 422, 'UNPROCESSABLE');
    expectError(await admin.post(`/api/v1/contracts/${c.contract_id}/contract-lines`, { contract_line_id: a.contract_line_id, custom_rate_cents: -5 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`/api/v1/contracts/${randomId()}/contract-lines`, { contract_line_id: a.contract_line_id }), 404, 'NOT_FOUND');

    expect((await admin.get(`/api/v1/contract-lines/${a.contract_line_id}`)).json().data.contract_count).toBe(1);
    expect((await admin.get(`/api/v1/contract-lines?contract_id=${c.contract_id}`)).json().data.map((l: { contract_line_name: string }) => l.contract_line_name)).toEqual(['A line', 'B line']);
    expectError(await admin.delete(`/api/v1/contract-lines/${a.contract_line_id}`), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/contract-lines/${a.contract_line_id}`, { currency_code: 'EUR' }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/contracts/${c.contract_id}`, { currency_code: 'EUR' }), 409, 'CONFLICT');

    expect((await admin.delete(`/api/v1/contracts/${c.contract_id}/contract-lines/${a.contract_line_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`/api/v1/contracts/${c.contract_id}/contract-lines/${a.contract_line_id}`), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/contracts/${c.contract_id}/contract-lines/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/contracts/${c.contract_id}/contract-lines/nope`), 400, 'VALIDATION_ERROR');
    expect((await admin.get(`/api/v1/contracts/${c.contract_id}`)).json().data.contract_lines.map((l: { contract_line_id: string }) => l.contract_line_id)).toEqual([b.contract_line_id]);
    expect((await admin.delete(`/api/v1/contract-lines/${a.contract_line_id}`)).statusCode).toBe(204);
    expect((await eventsOf(t, tenant, c.contract_id)).map((e) => [e.event_type, e.payload.contract_line_id ?? null])).toEqual([
      ['contract.created', null],
      ['contract.line_attached', a.contract_line_id],
      ['contract.line_attached', b.contract_line_id],
      ['contract.line_detached', a.contract_line_id],
    ]);

    await admin.put(`/api/v1/contracts/${c.contract_id}`, { status: 'expired' });
    expectError(await admin.delete(`/api/v1/contracts/${c.contract_id}/contract-lines/${b.contract_line_id}`), 422, 'UNPROCESSABLE');
  });
});

describe('contract lines', () => {
  it('creates each type with its settings and defaults; updates replace the settings; events', async () => {
    const { tenant, admin } = await makeTenant(t);
    const fixed = await admin.post('/api/v1/contract-lines', fixedLine({ config: { base_rate_cents: 99900, enable_proration: true, billing_cycle_alignment: 'prorated' } }));
    expect(fixed.statusCode, fixed.body).toBe(201);
    expect(fixed.json().data).toMatchObject({ contract_line_type: 'fixed', currency_code: 'USD', is_active: true, services: [], contract_count: 0, config: { base_rate_cents: 99900, enable_proration: true, billing_cycle_alignment: 'prorated' } });
    expect(fixed.headers.location).toBe(`/api/v1/contract-lines/${fixed.json().data.contract_line_id}`);
    const hourly = await admin.post('/api/v1/contract-lines', {
      contract_line_name: 'Helpdesk', contract_line_type: 'hourly', billing_frequency: 'monthly',
      config: { hourly_rate_cents: 12000, enable_overtime: true, overtime_rate_cents: 18000, overtime_threshold_minutes: 2400, enable_after_hours_rate: true, after_hours_multiplier: 1.5 },
    });
    expect(hourly.statusCode, hourly.body).toBe(201);
    expect(hourly.json().data.config).toEqual({
      hourly_rate_cents: 12000, minimum_billable_minutes: 0, round_up_to_minutes: 15, enable_overtime: true, overtime_rate_cents: 18000,
      overtime_threshold_minutes: 2400, enable_after_hours_rate: true, after_hours_multiplier: 1.5,
    });
    const usage = await admin.post('/api/v1/contract-lines', {
      contract_line_name: 'Backup storage', contract_line_type: 'usage', billing_frequency: 'monthly', currency_code: 'eur',
      config: { unit_of_measure: 'GB', rate_cents: 10, tiers: [{ min_quantity: 100, max_quantity: null, rate_cents: 5 }, { min_quantity: 0, max_quantity: 100, rate_cents: 8 }] },
    });
    expect(usage.statusCode, usage.body).toBe(201);
    expect(usage.json().data).toMatchObject({ currency_code: 'EUR', config: { unit_of_measure: 'GB', rate_cents: 10, minimum_usage: 0, tiers: [{ min_quantity: 0, max_quantity: 100, rate_cents: 8 }, { min_quantity: 100, max_quantity: null, rate_cents: 5 }] } });
    const bucket = await admin.post('/api/v1/contract-lines', {
      contract_line_name: 'Block of hours', contract_line_type: 'bucket', billing_frequency: 'quarterly', config: { total_minutes: 600, overage_rate_cents: 15000, allow_rollover: true, rollover_cap_minutes: 120 },
    });
    expect(bucket.statusCode, bucket.body).toBe(201);
    expect(bucket.json().data.config).toEqual({ total_minutes: 600, overage_rate_cents: 15000, allow_rollover: true, rollover_cap_minutes: 120 });

    const id = fixed.json().data.contract_line_id;
    const retyped = await admin.put(`/api/v1/contract-lines/${id}`, { contract_line_type: 'bucket', config: { total_minutes: 60, overage_rate_cents: 1 } });
    expect(retyped.statusCode, retyped.body).toBe(200);
    expect(retyped.json().data).toMatchObject({ contract_line_type: 'bucket', config: { total_minutes: 60, overage_rate_cents: 1, allow_rollover: false } });
    const names = async (q: string) => (await admin.get(`/api/v1/contract-lines${q}`)).json().data.map((l: { contract_line_name: string }) => l.contract_line_name);
    expect(await names('?contract_line_type=bucket')).toEqual(['Block of hours', 'Managed desktops']);
    expect(await names('?currency_code=eur')).toEqual(['Backup storage']);
    expect(await names('?billing_frequency=quarterly&search=block')).toEqual(['Block of hours']);
    expect(await names('?sort=contract_line_type&order=asc')).toEqual(['Block of hours', 'Managed desktops', 'Helpdesk', 'Backup storage']);
    expect((await eventsOf(t, tenant, id)).map((e) => [e.event_type, e.payload.changed_fields ?? null])).toEqual([
      ['contract_line.created', null],
      ['contract_line.updated', ['config', 'contract_line_type']],
    ]);
  });

  it('a line type with the wrong configuration is a 400 naming the field', async () => {
    const { admin } = await makeTenant(t);
    const hourly = (config: Record<string, unknown>) => ({ contract_line_name: 'H', contract_line_type: 'hourly', billing_frequency: 'monthly', config: { hourly_rate_cents: 10000, ...config } });
    const usage = (config: Record<string, unknown>) => ({ contract_line_name: 'U', contract_line_type: 'usage', billing_frequency: 'monthly', config: { unit_of_measure: 'GB', rate_cents: 1, ...config } });
    const bucket = (config: Record<string, unknown>) => ({ contract_line_name: 'B', contract_line_type: 'bucket', billing_frequency: 'monthly', config: { total_minutes: 60, overage_rate_cents: 1, ...config } });
    for (const [body, field] of [
      [fixedLine({ config: {} }), 'body.config.base_rate_cents'],
      [fixedLine({ config: { base_rate_cents: -1 } }), 'body.config.base_rate_cents'],
      [fixedLine({ config: { base_rate_cents: 10.5 } }), 'body.config.base_rate_cents'],
      [fixedLine({ config: { base_rate_cents: 1, hourly_rate_cents: 1 } }), 'body.config.hourly_rate_cents'],
      [fixedLine({ config: { base_rate_cents: 1, billing_cycle_alignment: 'prorated' } }), 'body.config.billing_cycle_alignment'],
      [fixedLine({ config: { base_rate_cents: 1, colour: 'red' } }), 'body.config.colour'],
      [fixedLine({ contract_line_type: 'retainer' }), 'body.contract_line_type'],
      [fixedLine({ currency_code: 'EUROS' }), 'body.currency_code'],
      [fixedLine({ currency_code: 'QQQ' }), 'body.currency_code'],
      [fixedLine({ contract_line_name: '  ' }), 'body.contract_line_name'],
      [fixedLine({ billing_frequency: 'daily' }), 'body.billing_frequency'],
      [hourly({ enable_overtime: true, overtime_threshold_minutes: 60 }), 'body.config.overtime_rate_cents'],
      [hourly({ enable_overtime: true, overtime_rate_cents: 15000 }), 'body.config.overtime_threshold_minutes'],
      [hourly({ overtime_rate_cents: 15000 }), 'body.config.overtime_rate_cents'],
      [hourly({ enable_overtime: true, overtime_rate_cents: 9000, overtime_threshold_minutes: 60 }), 'body.config.overtime_rate_cents'],
      [hourly({ enable_after_hours_rate: true }), 'body.config.after_hours_multiplier'],
      [hourly({ after_hours_multiplier: 2 }), 'body.config.after_hours_multiplier'],
      [hourly({ enable_after_hours_rate: true, after_hours_multiplier: 1 }), 'body.config.after_hours_multiplier'],
      [hourly({ round_up_to_minutes: 0 }), 'body.config.round_up_to_minutes'],
      [usage({ unit_of_measure: undefined }), 'body.config.unit_of_measure'],
      [usage({ tiers: [{ min_quantity: 0, max_quantity: 100, rate_cents: 5 }, { min_quantity: 50, max_quantity: null, rate_cents: 4 }] }), 'body.config.tiers.1.min_quantity'],
      [usage({ tiers: [{ min_quantity: 0, max_quantity: null, rate_cents: 5 }, { min_quantity: 50, max_quantity: null, rate_cents: 4 }] }), 'body.config.tiers.0.max_quantity'],
      [usage({ tiers: [{ min_quantity: 10, max_quantity: 10, rate_cents: 5 }] }), 'body.config.tiers.0.max_quantity'],
      [bucket({ total_minutes: 0 }), 'body.config.total_minutes'],
      [bucket({ rollover_cap_minutes: 30 }), 'body.config.rollover_cap_minutes'],
      [bucket({ base_rate_cents: 1 }), 'body.config.base_rate_cents'],
    ] as const) {
      const r = await admin.post('/api/v1/contract-lines', body);
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(r.json().error.message, JSON.stringify(body)).toContain(field);
    }
    const line = await makeLine(admin);
    const retype = await admin.put(`/api/v1/contract-lines/${line.contract_line_id}`, { contract_line_type: 'hourly' });
    expectError(retype, 400, 'VALIDATION_ERROR');
    expect(retype.json().error.message).toContain('body.config');
    const badConfig = await admin.put(`/api/v1/contract-lines/${line.contract_line_id}`, { config: { hourly_rate_cents: 1 } });
    expectError(badConfig, 400, 'VALIDATION_ERROR');
    expect(badConfig.json().error.message).toContain('body.config.hourly_rate_cents');
    expectError(await admin.put(`/api/v1/contract-lines/${line.contract_line_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/contract-lines?contract_line_type=flat'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`/api/v1/contract-lines/${randomId()}`), 404, 'NOT_FOUND');
  });

  it('carries catalogue items that suit its type; twice is a 409; a used item cannot be deleted', async () => {
    const { tenant, admin } = await makeTenant(t);
    const type = await hardwareType(admin);
    const svc = (body: Record<string, unknown>) => admin.post('/api/v1/services', { custom_service_type_id: type, unit_of_measure: 'hour', ...body });
    const support = (await svc({ service_name: 'Remote support', billing_method: 'hourly', default_rate: 12000 })).json().data;
    const flat = (await svc({ service_name: 'Monitoring', billing_method: 'fixed', default_rate: 5000 })).json().data;
    const disk = (await admin.post('/api/v1/products', { service_name: 'Disk', custom_service_type_id: type, unit_of_measure: 'each' })).json().data;
    const line = await makeLine(admin, { contract_line_type: 'hourly', config: { hourly_rate_cents: 11000 } });
    const path = `/api/v1/contract-lines/${line.contract_line_id}/services`;

    const added = await admin.post(path, { service_id: support.service_id, quantity: 2, custom_rate_cents: 10000 });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().data).toEqual({ service_id: support.service_id, service_name: 'Remote support', item_kind: 'service', billing_method: 'hourly', quantity: 2, custom_rate_cents: 10000, default_rate: 12000, currency_code: 'USD' });
    expectError(await admin.post(path, { service_id: support.service_id }), 409, 'CONFLICT');
    expectError(await admin.post(path, { service_id: flat.service_id }), 422, 'UNPROCESSABLE');
    expectError(await admin.post(path, { service_id: disk.service_id }), 422, 'UNPROCESSABLE');
    const foreign = await admin.post(path, { service_id: randomId() });
    expectError(foreign, 400, 'VALIDATION_ERROR');
    expect(foreign.json().error.message).toContain('body.service_id');
    expectError(await admin.post(path, { service_id: support.service_id, quantity: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/contract-lines/${line.contract_line_id}`, { contract_line_type: 'usage', config: { unit_of_measure: 'GB', rate_cents: 1 } }), 422, 'UNPROCESSABLE');

    expectError(await admin.put(`${path}/${support.service_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`${path}/not-a-uuid`, { quantity: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(path), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).put(`${path}/${support.service_id}`, { quantity: 1 }), 401, 'UNAUTHORIZED');
    const changed = await admin.put(`${path}/${support.service_id}`, { quantity: 3, custom_rate_cents: null });
    expect(changed.json().data).toMatchObject({ quantity: 3, custom_rate_cents: null });
    expect((await admin.get(path)).json().data.map((s: { service_id: string }) => s.service_id)).toEqual([support.service_id]);
    expect((await admin.get(`/api/v1/contract-lines/${line.contract_line_id}`)).json().data.services).toHaveLength(1);
    expectError(await admin.delete(`/api/v1/services/${support.service_id}`), 409, 'CONFLICT');
    expect((await admin.put(`/api/v1/services/${support.service_id}`, { is_active: false })).statusCode).toBe(200);
    expect((await admin.delete(`${path}/${support.service_id}`)).statusCode).toBe(204);
    expectError(await admin.delete(`${path}/${support.service_id}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`${path}/${support.service_id}`, { quantity: 1 }), 404, 'NOT_FOUND');
    expectError(await admin.post(path, { service_id: support.service_id }), 422, 'UNPROCESSABLE');
    expect((await admin.delete(`/api/v1/services/${support.service_id}`)).statusCode).toBe(204);
    expect((await eventsOf(t, tenant, line.contract_line_id)).map((e) => e.event_type)).toEqual([
      'contract_line.created', 'contract_line.service_added', 'contract_line.service_updated', 'contract_line.service_removed',
    ]);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.post(path, { service_id: flat.service_id }), 403, 'FORBIDDEN');
    expectError(await tech.get(path), 403, 'FORBIDDEN');
    expectError(await tech.delete(`/api/v1/contract-lines/${line.contract_line_id}`), 403, 'FORBIDDEN');
  });
});
