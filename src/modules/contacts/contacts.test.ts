import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
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
  type ContactJson,
} from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const names = async (api: Api, url: string): Promise<string[]> => {
  const res = await api.get(url);
  expectStatus(res, 200);
  return (res.json().data as ContactJson[]).map((c) => c.full_name);
};

describe('POST /api/v1/contacts', () => {
  it('creates a contact of a client and emits contact.created', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const res = await admin.post('/api/v1/contacts', {
      full_name: '  Ada Lovelace ',
      client_id: client.client_id,
      email: 'ada@example.test',
      phone: '+44 1234',
      role: 'CTO',
    });
    expectStatus(res, 201);
    const contact = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/contacts/${contact.contact_id}`);
    expect(contact).toMatchObject({
      client_id: client.client_id,
      full_name: 'Ada Lovelace',
      email: 'ada@example.test',
      phone: '+44 1234',
      role: 'CTO',
      is_inactive: false,
    });
    expect(await eventsOf(t, tenant, contact.contact_id)).toEqual([
      {
        event_type: 'contact.created',
        aggregate_type: 'contact',
        aggregate_id: contact.contact_id,
        payload: { contact_id: contact.contact_id, client_id: client.client_id },
      },
    ]);
  });

  it('creates a contact without a client', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/contacts', { full_name: 'Loose End' });
    expectStatus(res, 201);
    expect(res.json().data).toMatchObject({ client_id: null, email: null, phone: null, role: null });
  });

  it('answers 400 for a bad body, an unknown client or another tenant\'s client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const foreign = await makeClient(b.admin);
    for (const body of [
      {},
      { full_name: '' },
      { full_name: '   ' },
      { full_name: 'x'.repeat(256) },
      { full_name: 'X', email: 'nope' },
      { full_name: 'X', client_id: 'abc' },
      { full_name: 'X', title: 'Dr' },
    ]) {
      expectError(await a.admin.post('/api/v1/contacts', body), 400, 'VALIDATION_ERROR');
    }
    for (const clientId of [randomId(), foreign.client_id]) {
      const res = await a.admin.post('/api/v1/contacts', { full_name: 'X', client_id: clientId });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toBe('body.client_id: no such client');
    }
  });

  it('answers 409 for a merged (tombstoned) client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    await tombstone(t, tenant, source.client_id, target.client_id);
    expectError(await admin.post('/api/v1/contacts', { full_name: 'Late', client_id: source.client_id }), 409, 'CONFLICT');
  });

  it('answers 401 without a key and 403 to a Viewer', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/contacts', { full_name: 'X' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await viewer.api.post('/api/v1/contacts', { full_name: 'X' }), 403, 'FORBIDDEN');
  });

  it('attaches a Client Admin\'s contacts to their own client and refuses any other', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: own.client_id });
    const res = await portal.api.post('/api/v1/contacts', { full_name: 'Portal Made' });
    expectStatus(res, 201);
    expect(res.json().data.client_id).toBe(own.client_id);
    expectError(await portal.api.post('/api/v1/contacts', { full_name: 'X', client_id: other.client_id }), 400, 'VALIDATION_ERROR');
    expectError(await portal.api.post('/api/v1/contacts', { full_name: 'X', client_id: null }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /api/v1/contacts', () => {
  it('lists, filters, searches and sorts contacts with the pagination envelope', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const bob = await makeContact(admin, { full_name: 'bob', client_id: client.client_id, email: 'bob@acme.test' });
    await makeContact(admin, { full_name: 'Alice', email: 'alice@other.test', is_inactive: true });
    await makeContact(admin, { full_name: 'Carol_1', client_id: client.client_id });
    const res = await admin.get('/api/v1/contacts');
    expectStatus(res, 200);
    expect(res.json().data.map((c: ContactJson) => c.full_name)).toEqual(['Alice', 'bob', 'Carol_1']);
    expect(res.json().pagination).toEqual({ page: 1, limit: 25, total: 3, totalPages: 1, hasNext: false, hasPrev: false });
    expect(await names(admin, '/api/v1/contacts?order=desc')).toEqual(['Carol_1', 'bob', 'Alice']);
    expect(await names(admin, `/api/v1/contacts?client_id=${client.client_id}`)).toEqual(['bob', 'Carol_1']);
    expect(await names(admin, '/api/v1/contacts?is_inactive=true')).toEqual(['Alice']);
    expect(await names(admin, '/api/v1/contacts?search=ACME')).toEqual(['bob']);
    expect(await names(admin, '/api/v1/contacts?search=_')).toEqual(['Carol_1']);
    expect(await names(admin, '/api/v1/contacts?sort=created_at&limit=2&page=2')).toEqual(['Carol_1']);
    await sleep(5);
    const updated = await admin.put(`/api/v1/contacts/${bob.contact_id}`, { role: 'Boss' });
    const since = encodeURIComponent(updated.json().data.updated_at);
    expect(await names(admin, `/api/v1/contacts?updated_since=${since}`)).toEqual(['bob']);
    expect((await names(admin, '/api/v1/contacts?sort=updated_at&order=desc'))[0]).toBe('bob');
  });

  it('shows a client-portal user only their own client\'s contacts', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    await makeContact(admin, { full_name: 'Mine', client_id: own.client_id });
    await makeContact(admin, { full_name: 'Theirs', client_id: other.client_id });
    await makeContact(admin, { full_name: 'Nobody' });
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    expect(await names(portal.api, '/api/v1/contacts')).toEqual(['Mine']);
    expect(await names(portal.api, `/api/v1/contacts?client_id=${other.client_id}`)).toEqual([]);
  });

  it('answers 400 for unknown or malformed parameters, 401 and 403', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const q of ['?sort=email', '?limit=500', '?client_id=x', '?name=x', '?is_inactive=perhaps']) {
      expectError(await admin.get(`/api/v1/contacts${q}`), 400, 'VALIDATION_ERROR');
    }
    expectError(await anonymous(t).get('/api/v1/contacts'), 401, 'UNAUTHORIZED');
    const scoped = await makeUser(t, tenant, { role: 'Admin', scopes: ['client:read'] });
    expectError(await scoped.api.get('/api/v1/contacts'), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/clients/{id}/contacts', () => {
  it('lists the client\'s contacts only, paginated', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const other = await makeClient(admin);
    await makeContact(admin, { full_name: 'Zed', client_id: client.client_id });
    await makeContact(admin, { full_name: 'Amy', client_id: client.client_id, is_inactive: true });
    await makeContact(admin, { full_name: 'Elsewhere', client_id: other.client_id });
    const url = `/api/v1/clients/${client.client_id}/contacts`;
    const res = await admin.get(`${url}?limit=1`);
    expectStatus(res, 200);
    expect(res.json().data.map((c: ContactJson) => c.full_name)).toEqual(['Amy']);
    expect(res.json().pagination).toMatchObject({ total: 2, totalPages: 2, hasNext: true });
    expect(await names(admin, `${url}?is_inactive=false`)).toEqual(['Zed']);
  });

  it('answers 400, 401, 403 without contact:read, and 404 for an unknown, foreign or invisible client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}/contacts`;
    expectError(await a.admin.get('/api/v1/clients/nope/contacts'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url}?client_id=${client.client_id}`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const scoped = await makeUser(t, a.tenant, { role: 'Admin', scopes: ['client:read'] });
    const res = await scoped.api.get(url);
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['contact:read'] });
    expectError(await a.admin.get(`/api/v1/clients/${randomId()}/contacts`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    const portal = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: other.client_id });
    expectError(await portal.api.get(url), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/contacts/{id}', () => {
  it('returns the contact with an ETag', async () => {
    const { admin } = await makeTenant(t);
    const contact = await makeContact(admin, { email: 'x@y.test' });
    const res = await admin.get(`/api/v1/contacts/${contact.contact_id}`);
    expectStatus(res, 200);
    expect(res.json().data).toEqual(contact);
    expect(res.headers.etag).toBeTruthy();
  });

  it('answers 400, 401, 403, and 404 for unknown, foreign or invisible contacts', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const contact = await makeContact(a.admin, { client_id: other.client_id });
    const url = `/api/v1/contacts/${contact.contact_id}`;
    expectError(await a.admin.get('/api/v1/contacts/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, a.tenant, { role: undefined });
    expectError(await noRole.api.get(url), 403, 'FORBIDDEN');
    expectError(await a.admin.get(`/api/v1/contacts/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    const portal = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    expectError(await portal.api.get(url), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/contacts/{id}', () => {
  it('updates the given fields and emits contact.updated with their names', async () => {
    const { tenant, admin } = await makeTenant(t);
    const contact = await makeContact(admin, { full_name: 'Old', email: 'old@x.test', role: 'Dev' });
    const res = await admin.put(`/api/v1/contacts/${contact.contact_id}`, { full_name: 'New', email: null, role: 'Dev' });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ full_name: 'New', email: null, role: 'Dev', created_at: contact.created_at });
    expect(res.headers.etag).toBeTruthy();
    expect((await eventsOf(t, tenant, contact.contact_id)).at(-1)).toEqual({
      event_type: 'contact.updated',
      aggregate_type: 'contact',
      aggregate_id: contact.contact_id,
      payload: { contact_id: contact.contact_id, client_id: null, changed_fields: ['full_name', 'email'] },
    });
  });

  it('moves a contact to another client and takes it off the old client\'s billing profiles', async () => {
    const { tenant, admin } = await makeTenant(t);
    const from = await makeClient(admin);
    const to = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: from.client_id });
    const profileUrl = `/api/v1/clients/${from.client_id}/billing-profiles/${await defaultProfileId(admin, from.client_id)}/contacts`;
    expectStatus(await admin.put(profileUrl, { contacts: [{ contact_id: contact.contact_id }] }), 200);
    const res = await admin.put(`/api/v1/contacts/${contact.contact_id}`, { client_id: to.client_id });
    expectStatus(res, 200);
    expect(res.json().data.client_id).toBe(to.client_id);
    expect((await admin.get(profileUrl)).json().data).toEqual([]);
    expect((await eventsOf(t, tenant, contact.contact_id)).at(-1)!.payload).toEqual({
      contact_id: contact.contact_id,
      client_id: to.client_id,
      changed_fields: ['client_id'],
      previous_client_id: from.client_id,
    });
  });

  it('answers 400 for an empty or invalid body or an unknown client, and 409 for a tombstoned client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const contact = await makeContact(admin);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    await tombstone(t, tenant, source.client_id, target.client_id);
    const url = `/api/v1/contacts/${contact.contact_id}`;
    for (const body of [{}, { full_name: '' }, { email: 'bad' }, { tags: [] }, { is_inactive: 'no' }]) {
      expectError(await admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.put(url, { client_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { client_id: source.client_id }), 409, 'CONFLICT');
  });

  it('honours If-Match', async () => {
    const { admin } = await makeTenant(t);
    const contact = await makeContact(admin);
    const url = `/api/v1/contacts/${contact.contact_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    expectStatus(await admin.put(url, { role: 'A' }, { 'if-match': etag }), 200);
    expectError(await admin.put(url, { role: 'B' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
  });

  it('answers 401, 403 to a Viewer, and 404 for unknown, foreign or invisible contacts', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const own = await makeClient(a.admin);
    const contact = await makeContact(a.admin);
    const url = `/api/v1/contacts/${contact.contact_id}`;
    expectError(await anonymous(t).put(url, { role: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { role: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(`/api/v1/contacts/${randomId()}`, { role: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { role: 'x' }), 404, 'NOT_FOUND');
    const portal = await makeUser(t, a.tenant, { role: 'Client Admin', userType: 'client', clientId: own.client_id });
    expectError(await portal.api.put(url, { role: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/contacts/{id}', () => {
  it('deletes the contact and emits contact.deleted', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const contact = await makeContact(admin, { client_id: client.client_id });
    const res = await admin.delete(`/api/v1/contacts/${contact.contact_id}`);
    expectStatus(res, 204);
    expectError(await admin.get(`/api/v1/contacts/${contact.contact_id}`), 404, 'NOT_FOUND');
    expect((await eventsOf(t, tenant, contact.contact_id)).at(-1)).toMatchObject({
      event_type: 'contact.deleted',
      payload: { contact_id: contact.contact_id, client_id: client.client_id },
    });
    expectStatus(await admin.delete(`/api/v1/clients/${client.client_id}`), 204);
  });

  it('honours If-Match', async () => {
    const { admin } = await makeTenant(t);
    const contact = await makeContact(admin);
    const url = `/api/v1/contacts/${contact.contact_id}`;
    expectError(await admin.delete(url, { 'if-match': '"nope"' }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.delete(url, { 'if-match': String((await admin.get(url)).headers.etag) }), 204);
  });

  it('answers 400, 401, 403 to a Technician, and 404 for unknown or foreign contacts', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const contact = await makeContact(a.admin);
    const url = `/api/v1/contacts/${contact.contact_id}`;
    expectError(await a.admin.delete('/api/v1/contacts/1'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(url), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await a.admin.delete(`/api/v1/contacts/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(url), 404, 'NOT_FOUND');
    expectStatus(await a.admin.get(url), 200);
  });
});
