import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactListCounts } from '../../src/platform/db/list-counts.ts';
import { newId } from '../../src/platform/ids.ts';
import { makeAsset } from '../asset-factories.ts';
import { expectStatus, makeClient, makeContact } from '../client-factories.ts';
import { makeTenant, type Api } from '../factories.ts';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeProject } from '../project-factories.ts';
import { makeTicket } from '../ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

/** The total an unfiltered list reports (the maintained count) and the one a filter matching every row counts. */
async function totals(api: Api, path: string): Promise<{ maintained: number; counted: number }> {
  const maintained = await api.get(`${path}?limit=1`);
  const counted = await api.get(`${path}?limit=1&updated_since=1970-01-01T00:00:00.000Z`);
  expectStatus(maintained, 200);
  expectStatus(counted, 200);
  return { maintained: maintained.json().pagination.total, counted: counted.json().pagination.total };
}

const deltaRows = async (tenant: string) =>
  Number((await sql<{ n: number }>`select count(*) as n from list_counts where tenant = ${tenant}`.execute(t.database.db)).rows[0]!.n);

describe('maintained list totals', () => {
  it('keep every unfiltered list total exact through creates, bulk inserts, merges and deletes, per tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const clients = [await makeClient(a.admin), await makeClient(a.admin), await makeClient(a.admin)];
    await makeClient(b.admin);
    // One statement inserting many rows writes one delta.
    await t.database.db.insertInto('clients').values(Array.from({ length: 40 }, (_, i) => ({
      tenant: a.tenant, client_id: newId(), client_name: `Bulk ${i}`, client_type: 'company' as const, billing_cycle: 'monthly' as const,
      payment_terms: 'net_30', default_currency_code: 'USD', client_since: null, tax_id_number: null, notes: null,
      merged_into_client_id: null, merged_at: null,
    }))).execute();
    expect(await totals(a.admin, '/api/v1/clients')).toEqual({ maintained: 43, counted: 43 });
    expect(await totals(b.admin, '/api/v1/clients')).toEqual({ maintained: 1, counted: 1 });

    // A merged client leaves the default list (an UPDATE), a deleted one leaves it too.
    await t.database.db.updateTable('clients').set({ merged_into_client_id: clients[0]!.client_id, merged_at: new Date() })
      .where('tenant', '=', a.tenant).where('client_id', '=', clients[1]!.client_id).execute();
    expectStatus(await a.admin.delete(`/api/v1/clients/${clients[2]!.client_id}`), 204);
    expect(await totals(a.admin, '/api/v1/clients')).toEqual({ maintained: 41, counted: 41 });

    const clientId = clients[0]!.client_id;
    const tickets = [await makeTicket(a.admin, clientId), await makeTicket(a.admin, clientId)];
    expectStatus(await a.admin.delete(`/api/v1/tickets/${tickets[0]!.ticket_id}`), 204);
    await makeContact(a.admin, { client_id: clientId });
    await makeAsset(a.admin, { client_id: clientId });
    await makeProject(a.admin, { client_id: clientId });
    for (const [path, n] of [['/api/v1/tickets', 1], ['/api/v1/contacts', 1], ['/api/v1/assets', 1], ['/api/v1/projects', 1]] as const) {
      expect(await totals(a.admin, path), path).toEqual({ maintained: n, counted: n });
      expect(await totals(b.admin, path), path).toEqual({ maintained: 0, counted: 0 });
    }
  });

  it('compaction folds the deltas into one row per list without changing a total', async () => {
    const a = await makeTenant(t);
    for (let i = 0; i < 5; i++) await makeClient(a.admin);
    const before = await totals(a.admin, '/api/v1/clients');
    expect(await deltaRows(a.tenant)).toBeGreaterThanOrEqual(5);
    await compactListCounts(t.database.db);
    expect(await deltaRows(a.tenant)).toBe(1);
    expect(await totals(a.admin, '/api/v1/clients')).toEqual(before);
    await makeClient(a.admin);
    await compactListCounts(t.database.db);
    expect(await totals(a.admin, '/api/v1/clients')).toEqual({ maintained: 6, counted: 6 });
    // The unfiltered total really is read from the deltas (a stray one shows), the filtered one counted.
    await sql`insert into list_counts (tenant, list, delta) values (${a.tenant}, 'clients', 100)`.execute(t.database.db);
    expect(await totals(a.admin, '/api/v1/clients')).toEqual({ maintained: 106, counted: 6 });
  });

  it('a filtered list still counts, and a page past the end still reports the total', async () => {
    const a = await makeTenant(t);
    for (let i = 0; i < 3; i++) await makeClient(a.admin, { client_name: `Zed ${i}` });
    await makeClient(a.admin, { client_name: 'Other' });
    const filtered = await a.admin.get('/api/v1/clients?search=zed&limit=2');
    expect(filtered.json().pagination).toMatchObject({ total: 3, totalPages: 2, hasNext: true });
    const past = await a.admin.get('/api/v1/clients?page=9&limit=2');
    expectStatus(past, 200);
    expect(past.json()).toEqual({ data: [], pagination: { page: 9, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true } });
  });
});
