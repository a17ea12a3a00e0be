import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { expectStatus, makeClient, makeContact, type ClientJson, type ContactJson } from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

// The client and contact lists keep their rows by version (keptListPage): a page repeats until something it shows changes.
describe('GET /api/v1/clients and /api/v1/contacts, repeated', () => {
  it('shows at once what changes in a client or in its default location, under every sort', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Acme', email: 'old@acme.test', location: { country_code: 'gb', country_name: 'United Kingdom' } });
    await makeClient(admin, { client_name: 'Beta' });
    const row = async (q = '') => {
      const res = await admin.get(`/api/v1/clients${q}`);
      expectStatus(res, 200);
      return (res.json().data as ClientJson[]).find((c) => c.client_id === client.client_id)!;
    };
    const first = await admin.get('/api/v1/clients');
    expect((await admin.get('/api/v1/clients')).body).toBe(first.body);
    expect((await row()).email).toBe('old@acme.test');
    expect((await row('?sort=billing_cycle')).email).toBe('old@acme.test');

    await sql`update client_locations set email = 'new@acme.test' where tenant = ${tenant} and client_id = ${client.client_id}`.execute(t.database.db);
    expect((await row()).email).toBe('new@acme.test');
    expect((await row('?sort=billing_cycle')).email).toBe('new@acme.test');
    await sql`update client_locations set is_default = false where tenant = ${tenant} and client_id = ${client.client_id}`.execute(t.database.db);
    expect((await row()).email).toBeNull();
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}`, { client_name: 'Acme 2' }), 200);
    expect((await row('?sort=billing_cycle')).client_name).toBe('Acme 2');
  });

  it('shows at once what changes in a contact', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: client.client_id, full_name: 'Ada' });
    const names = async () => ((await admin.get('/api/v1/contacts')).json().data as ContactJson[]).map((c) => c.full_name);
    expect(await names()).toEqual(['Ada']);
    await sql`update contacts set full_name = 'Grace' where tenant = ${tenant} and contact_id = ${contact.contact_id}`.execute(t.database.db);
    expect(await names()).toEqual(['Grace']);
  });
});
