import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import {
  anonymous,
  defaultProfileId,
  eventsOf,
  expectError,
  expectStatus,
  makeClient,
  makeContact,
  randomId,
  tombstone,
} from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const contactsUrl = (clientId: string, profileId: string) => `/api/v1/clients/${clientId}/billing-profiles/${profileId}/contacts`;

describe('GET /api/v1/clients/{id}/billing-profiles', () => {
  it('lists the default profile every client gets', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Profiled' });
    const res = await admin.get(`/api/v1/clients/${client.client_id}/billing-profiles`);
    expectStatus(res, 200);
    const [profile, ...rest] = res.json().data;
    expect(rest).toEqual([]);
    expect(profile).toMatchObject({ client_id: client.client_id, name: 'Profiled', is_default: true, is_active: true });
    expect(profile.billing_profile_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 400, 401, 403 without client:read, and 404 for an unknown, foreign or invisible client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}/billing-profiles`;
    expectError(await a.admin.get('/api/v1/clients/x/billing-profiles'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url}?is_default=true`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, a.tenant, { role: undefined });
    expectError(await noRole.api.get(url), 403, 'FORBIDDEN');
    expectError(await a.admin.get(`/api/v1/clients/${randomId()}/billing-profiles`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    const portal = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: other.client_id });
    expectError(await portal.api.get(url), 404, 'NOT_FOUND');
    expectStatus(await portal.api.get(`/api/v1/clients/${other.client_id}/billing-profiles`), 200);
  });
});

describe('GET /api/v1/clients/{id}/billing-profiles/{profileId}/contacts', () => {
  it('starts empty', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const res = await admin.get(contactsUrl(client.client_id, await defaultProfileId(admin, client.client_id)));
    expectStatus(res, 200);
    expect(res.json()).toEqual({ data: [] });
  });

  it('answers 400, 401, 403, and 404 for an unknown profile or a profile of another client or tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const profile = await defaultProfileId(a.admin, client.client_id);
    const url = contactsUrl(client.client_id, profile);
    expectError(await a.admin.get(contactsUrl(client.client_id, 'nope')), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, a.tenant, { role: undefined });
    expectError(await noRole.api.get(url), 403, 'FORBIDDEN');
    expectError(await a.admin.get(contactsUrl(client.client_id, randomId())), 404, 'NOT_FOUND');
    expectError(await a.admin.get(contactsUrl(other.client_id, profile)), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/clients/{id}/billing-profiles/{profileId}/contacts', () => {
  it('replaces the whole list atomically and emits client.updated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const profile = await defaultProfileId(admin, client.client_id);
    const ann = await makeContact(admin, { client_id: client.client_id, full_name: 'Ann', email: 'ann@x.test' });
    const bob = await makeContact(admin, { client_id: client.client_id, full_name: 'Bob' });
    const cat = await makeContact(admin, { client_id: client.client_id, full_name: 'Cat' });
    const url = contactsUrl(client.client_id, profile);

    const first = await admin.put(url, { contacts: [{ contact_id: bob.contact_id, can_view_profile_tickets: true }, { contact_id: ann.contact_id }] });
    expectStatus(first, 200);
    expect(first.json().data).toEqual([
      { contact_id: ann.contact_id, full_name: 'Ann', email: 'ann@x.test', can_view_profile_tickets: false },
      { contact_id: bob.contact_id, full_name: 'Bob', email: null, can_view_profile_tickets: true },
    ]);

    const second = await admin.put(url, { contacts: [{ contact_id: ann.contact_id, can_view_profile_tickets: true }, { contact_id: cat.contact_id, can_view_profile_tickets: false }] });
    expectStatus(second, 200);
    expect(second.json().data.map((c: { full_name: string; can_view_profile_tickets: boolean }) => [c.full_name, c.can_view_profile_tickets])).toEqual([
      ['Ann', true],
      ['Cat', false],
    ]);
    expect((await admin.get(url)).json()).toEqual(second.json());
    const rows = await t.database.db.selectFrom('billing_profile_contacts').select('contact_id').where('tenant', '=', tenant).execute();
    expect(rows).toHaveLength(2);

    expectStatus(await admin.put(url, { contacts: [] }), 200);
    expect((await admin.get(url)).json().data).toEqual([]);
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)).toMatchObject({
      event_type: 'client.updated',
      payload: { client_id: client.client_id, changed_fields: ['billing_profile_contacts'], billing_profile_id: profile },
    });
  });

  it('drops a deleted contact from the list', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = contactsUrl(client.client_id, await defaultProfileId(admin, client.client_id));
    const ann = await makeContact(admin, { client_id: client.client_id });
    expectStatus(await admin.put(url, { contacts: [{ contact_id: ann.contact_id }] }), 200);
    expectStatus(await admin.delete(`/api/v1/contacts/${ann.contact_id}`), 204);
    expect((await admin.get(url)).json().data).toEqual([]);
  });

  it('answers 400 naming contacts of another client or tenant, and leaves the list unchanged', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const url = contactsUrl(client.client_id, await defaultProfileId(a.admin, client.client_id));
    const own = await makeContact(a.admin, { client_id: client.client_id });
    const foreign = await makeContact(a.admin, { client_id: other.client_id });
    const loose = await makeContact(a.admin);
    const elsewhere = await makeContact(b.admin);
    expectStatus(await a.admin.put(url, { contacts: [{ contact_id: own.contact_id }] }), 200);
    const res = await a.admin.put(url, {
      contacts: [{ contact_id: own.contact_id }, { contact_id: foreign.contact_id }, { contact_id: loose.contact_id }, { contact_id: elsewhere.contact_id }],
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.details[0].contact_ids).toEqual([foreign.contact_id, loose.contact_id, elsewhere.contact_id]);
    expect(res.json().error.message).toContain(foreign.contact_id);
    expect((await a.admin.get(url)).json().data.map((c: { contact_id: string }) => c.contact_id)).toEqual([own.contact_id]);
  });

  it('answers 400 for duplicates, unknown fields, a missing list or more than 500 items', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = contactsUrl(client.client_id, await defaultProfileId(admin, client.client_id));
    const ann = await makeContact(admin, { client_id: client.client_id });
    const dup = await admin.put(url, { contacts: [{ contact_id: ann.contact_id }, { contact_id: ann.contact_id, can_view_profile_tickets: true }] });
    expectError(dup, 400, 'VALIDATION_ERROR');
    expect(dup.json().error.details[0].contact_ids).toEqual([ann.contact_id]);
    for (const body of [
      {},
      { contacts: [{ contact_id: ann.contact_id, is_primary: true }] },
      { contacts: [{ contact_id: 'abc' }] },
      { contacts: [{ contact_id: ann.contact_id, can_view_profile_tickets: 'yes' }] },
      { contacts: Array.from({ length: 501 }, () => ({ contact_id: randomId() })) },
      { contacts: [], extra: 1 },
    ]) {
      expectError(await admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
  });

  it('answers 404 for an unknown profile, a profile of another client, or a foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const profile = await defaultProfileId(a.admin, client.client_id);
    const body = { contacts: [] };
    expectError(await a.admin.put(contactsUrl(client.client_id, randomId()), body), 404, 'NOT_FOUND');
    expectError(await a.admin.put(contactsUrl(other.client_id, profile), body), 404, 'NOT_FOUND');
    expectError(await a.admin.put(contactsUrl(randomId(), profile), body), 404, 'NOT_FOUND');
    expectError(await b.admin.put(contactsUrl(client.client_id, profile), body), 404, 'NOT_FOUND');
  });

  it('answers 409 for a tombstone, 401 without a key and 403 to a Viewer', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const target = await makeClient(admin);
    const url = contactsUrl(client.client_id, await defaultProfileId(admin, client.client_id));
    expectError(await anonymous(t).put(url, { contacts: [] }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { contacts: [] }), 403, 'FORBIDDEN');
    await tombstone(t, tenant, client.client_id, target.client_id);
    expectError(await admin.put(url, { contacts: [] }), 409, 'CONFLICT');
  });
});
