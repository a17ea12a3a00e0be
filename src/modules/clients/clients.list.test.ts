import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { US, anonymous, expectError, expectStatus, makeClient, tombstone, type ClientJson } from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const names = async (api: Api, query: string): Promise<string[]> => {
  const res = await api.get(`/api/v1/clients${query}`);
  expectStatus(res, 200);
  return (res.json().data as ClientJson[]).map((c) => c.client_name);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET /api/v1/clients', () => {
  it('lists clients by name case-insensitively with the pagination envelope', async () => {
    const { admin } = await makeTenant(t);
    await makeClient(admin, { client_name: 'charlie' });
    await makeClient(admin, { client_name: 'Alpha' });
    await makeClient(admin, { client_name: 'bravo' });
    const res = await admin.get('/api/v1/clients');
    expectStatus(res, 200);
    expect(res.json().data.map((c: ClientJson) => c.client_name)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(res.json().pagination).toEqual({ page: 1, limit: 25, total: 3, totalPages: 1, hasNext: false, hasPrev: false });

    const page2 = await admin.get('/api/v1/clients?limit=2&page=2');
    expectStatus(page2, 200);
    expect(page2.json().data.map((c: ClientJson) => c.client_name)).toEqual(['charlie']);
    expect(page2.json().pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    expect(await names(admin, '?sort=client_name&order=desc')).toEqual(['charlie', 'bravo', 'Alpha']);
  });

  it('includes email, phone_no and address from the default location in each row', async () => {
    const { admin } = await makeTenant(t);
    await makeClient(admin, {
      client_name: 'Addressed',
      email: 'a@addressed.test',
      phone_no: '555',
      location: { ...US, address_line1: '1 Main St', address_line2: 'Suite 2', city: 'Austin', state_province: 'TX', postal_code: '73301' },
    });
    await makeClient(admin, { client_name: 'Bare', location: US });
    const res = await admin.get('/api/v1/clients');
    expectStatus(res, 200);
    const [addressed, bare] = res.json().data as ClientJson[];
    expect(addressed).toMatchObject({ email: 'a@addressed.test', phone_no: '555', address: '1 Main St, Suite 2, Austin, TX, 73301, United States' });
    expect(bare).toMatchObject({ email: null, phone_no: null, address: null });
  });

  it('sorts by the whitelisted fields with client_id as the tie-break', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeClient(admin, { client_name: 'A', billing_cycle: 'weekly', client_since: '2021-01-01' });
    const b = await makeClient(admin, { client_name: 'B', billing_cycle: 'annually' });
    const c = await makeClient(admin, { client_name: 'C', billing_cycle: 'weekly', client_since: '2019-01-01' });
    expect(await names(admin, '?sort=billing_cycle')).toEqual(['B', 'A', 'C']);
    expect(await names(admin, '?sort=billing_cycle&order=desc')).toEqual(['C', 'A', 'B']);
    expect(await names(admin, '?sort=client_since')).toEqual(['C', 'A', 'B']);
    expect(await names(admin, '?sort=client_since&order=desc')).toEqual(['A', 'C', 'B']);
    const byCreated = [a, b, c].sort((x, y) => (x.created_at + x.client_id < y.created_at + y.client_id ? -1 : 1)).map((x) => x.client_name);
    expect(await names(admin, '?sort=created_at')).toEqual(byCreated);
    expect(await names(admin, '?sort=created_at&order=desc')).toEqual([...byCreated].reverse());
    await sleep(5);
    expectStatus(await admin.put(`/api/v1/clients/${a.client_id}`, { payment_terms: 'Net 1' }), 200);
    expect((await names(admin, '?sort=updated_at&order=desc'))[0]).toBe('A');
  });

  it('filters by client_type, billing_cycle, is_inactive, is_merged (tombstones hidden by default) and updated_since', async () => {
    const { tenant, admin } = await makeTenant(t);
    const a = await makeClient(admin, { client_name: 'A', client_type: 'individual', billing_cycle: 'weekly' });
    await makeClient(admin, { client_name: 'B', billing_cycle: 'weekly', is_inactive: true });
    const c = await makeClient(admin, { client_name: 'C', billing_cycle: 'monthly' });
    await tombstone(t, tenant, c.client_id, a.client_id);
    expect(await names(admin, '?client_type=individual')).toEqual(['A']);
    // A merged client (tombstone) is left out of lists unless asked for.
    expect(await names(admin, '?client_type=company')).toEqual(['B']);
    expect(await names(admin, '?client_type=company&include_merged=true')).toEqual(['B', 'C']);
    expect(await names(admin, '?billing_cycle=weekly')).toEqual(['A', 'B']);
    expect(await names(admin, '?is_inactive=true')).toEqual(['B']);
    expect(await names(admin, '?is_inactive=false&billing_cycle=weekly')).toEqual(['A']);
    expect(await names(admin, '?is_merged=true')).toEqual(['C']);
    expect(await names(admin, '?is_merged=false')).toEqual(['A', 'B']);

    await sleep(5);
    const res = await admin.put(`/api/v1/clients/${a.client_id}`, { payment_terms: 'Net 30' });
    const since = res.json().data.updated_at as string;
    expect(await names(admin, `?updated_since=${encodeURIComponent(since)}`)).toEqual(['A']);
    const total = await admin.get(`/api/v1/clients?updated_since=${encodeURIComponent(since)}`);
    expect(total.json().pagination.total).toBe(1);
  });

  it('searches name, tax ID and the default location\'s email, phone and city, treating wildcards literally', async () => {
    const { admin } = await makeTenant(t);
    await makeClient(admin, { client_name: 'Northwind Traders' });
    await makeClient(admin, { client_name: 'Taxed', tax_id_number: 'VAT-998877' });
    await makeClient(admin, { client_name: 'Mailed', email: 'ops@Contoso.test', location: US });
    await makeClient(admin, { client_name: 'Phoned', phone_no: '+1 415 555 0199', location: US });
    await makeClient(admin, { client_name: 'Citied', location: { ...US, city: 'Reykjavik' } });
    await makeClient(admin, { client_name: '100% Pure' });
    await makeClient(admin, { client_name: 'snake_case' });
    await makeClient(admin, { client_name: 'snakeXcase' });
    expect(await names(admin, '?search=NORTHWIND')).toEqual(['Northwind Traders']);
    expect(await names(admin, '?search=998877')).toEqual(['Taxed']);
    expect(await names(admin, '?search=contoso')).toEqual(['Mailed']);
    expect(await names(admin, '?search=555%200199')).toEqual(['Phoned']);
    expect(await names(admin, '?search=reykjav')).toEqual(['Citied']);
    expect(await names(admin, '?search=%25')).toEqual(['100% Pure']);
    expect(await names(admin, '?search=e_c')).toEqual(['snake_case']);
    const res = await admin.get('/api/v1/clients?search=snake');
    expect(res.json().pagination.total).toBe(2);
    expect(await names(admin, '?search=%20%20')).toHaveLength(8);
  });

  it('shows a client-portal user only their own client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin, { client_name: 'Own' });
    await makeClient(admin, { client_name: 'Other' });
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    const res = await portal.api.get('/api/v1/clients');
    expectStatus(res, 200);
    expect(res.json().data.map((c: ClientJson) => c.client_id)).toEqual([own.client_id]);
    expect(res.json().pagination.total).toBe(1);
    expect(await names(portal.api, '?search=Other')).toEqual([]);
  });

  it('answers 400 for unknown parameters and out-of-range or malformed values', async () => {
    const { admin } = await makeTenant(t);
    for (const q of ['?limit=101', '?limit=0', '?page=0', '?sort=email', '?order=sideways', '?client_name=x', '?is_inactive=maybe', '?updated_since=yesterday', '?billing_cycle=daily', `?search=${'x'.repeat(201)}`]) {
      expectError(await admin.get(`/api/v1/clients${q}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('answers 401 without a key and 403 to a key without client:read', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).get('/api/v1/clients'), 401, 'UNAUTHORIZED');
    const narrowed = await makeUser(t, tenant, { role: 'Admin', scopes: ['contact:read'] });
    const res = await narrowed.api.get('/api/v1/clients');
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['client:read'] });
  });
});

describe('GET /api/v1/clients/stats', () => {
  it('counts live clients by state, billing cycle and type, and merged clients apart', async () => {
    const { tenant, admin } = await makeTenant(t);
    await makeClient(admin, { billing_cycle: 'monthly' });
    const target = await makeClient(admin, { billing_cycle: 'monthly' });
    await makeClient(admin, { billing_cycle: 'weekly', client_type: 'individual', is_inactive: true });
    const merged = await makeClient(admin, { billing_cycle: 'annually' });
    await tombstone(t, tenant, merged.client_id, target.client_id);
    const res = await admin.get('/api/v1/clients/stats');
    expectStatus(res, 200);
    expect(res.json().data).toEqual({
      total_clients: 3,
      active_clients: 2,
      inactive_clients: 1,
      merged_clients: 1,
      clients_by_billing_cycle: { weekly: 1, 'bi-weekly': 0, monthly: 2, quarterly: 0, 'semi-annually': 0, annually: 0 },
      clients_by_client_type: { company: 2, individual: 1 },
    });
  });

  it('counts only their own client for a client-portal user', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin, { billing_cycle: 'quarterly' });
    await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    const res = await portal.api.get('/api/v1/clients/stats');
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ total_clients: 1, active_clients: 1, clients_by_billing_cycle: { quarterly: 1, monthly: 0 } });
  });

  it('answers 400 for a query parameter, 401 without a key and 403 without client:read', async () => {
    const { tenant, admin } = await makeTenant(t);
    expectError(await admin.get('/api/v1/clients/stats?by=type'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/clients/stats'), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, tenant, { role: undefined });
    expectError(await noRole.api.get('/api/v1/clients/stats'), 403, 'FORBIDDEN');
  });
});
