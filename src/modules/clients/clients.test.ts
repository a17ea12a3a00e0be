import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { apiFor, makeTenant, makeUser } from '../../../test/factories.ts';
import {
  US,
  anonymous,
  eventsOf,
  expectError,
  expectStatus,
  getClient,
  makeClient,
  makeContact,
  makeLocation,
  randomId,
  tombstone,
} from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const rowsOf = (table: 'client_locations' | 'client_billing_profiles', tenant: string, clientId: string) =>
  t.database.db.selectFrom(table).selectAll().where('tenant', '=', tenant).where('client_id', '=', clientId).execute();

describe('POST /api/v1/clients', () => {
  it('creates a client with defaults, its default billing profile and a client.created event', async () => {
    const { tenant, admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/clients', { client_name: '  Acme Corp  ', billing_cycle: 'monthly' });
    expectStatus(res, 201);
    const client = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/clients/${client.client_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(client).toMatchObject({
      client_name: 'Acme Corp',
      client_type: 'company',
      billing_cycle: 'monthly',
      email: null,
      phone_no: null,
      address: null,
      payment_terms: null,
      default_currency_code: 'USD',
      client_since: null,
      tax_id_number: null,
      is_inactive: false,
      merged_into_client_id: null,
      merged_at: null,
    });
    expect(client.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const profiles = await rowsOf('client_billing_profiles', tenant, client.client_id);
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({ name: 'Acme Corp', is_default: true, is_active: true });
    expect(await rowsOf('client_locations', tenant, client.client_id)).toHaveLength(0);

    const events = await eventsOf(t, tenant, client.client_id);
    expect(events).toEqual([
      {
        event_type: 'client.created',
        aggregate_type: 'client',
        aggregate_id: client.client_id,
        payload: { client_id: client.client_id, location_id: null, billing_profile_id: profiles[0]!.billing_profile_id },
      },
    ]);
  });

  it('stores every optional field and upper-cases the currency code', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/clients', {
      client_name: 'Jane Doe',
      billing_cycle: 'bi-weekly',
      client_type: 'individual',
      default_currency_code: 'eur',
      client_since: '2020-02-29',
      payment_terms: 'Net 30',
      tax_id_number: 'DE123456789',
      is_inactive: true,
    });
    expectStatus(res, 201);
    expect(res.json().data).toMatchObject({
      client_type: 'individual',
      billing_cycle: 'bi-weekly',
      default_currency_code: 'EUR',
      client_since: '2020-02-29',
      payment_terms: 'Net 30',
      tax_id_number: 'DE123456789',
      is_inactive: true,
    });
  });

  it('creates the default location from location, email and phone_no', async () => {
    const { tenant, admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/clients', {
      client_name: 'Located Ltd',
      billing_cycle: 'quarterly',
      email: 'billing@located.test',
      phone_no: '+44 20 7946 0000',
      location: { address_line1: '1 High Street', city: 'London', postal_code: 'SW1A 1AA', country_code: 'gb', country_name: 'United Kingdom' },
    });
    expectStatus(res, 201);
    const client = res.json().data;
    expect(client).toMatchObject({
      email: 'billing@located.test',
      phone_no: '+44 20 7946 0000',
      address: '1 High Street, London, SW1A 1AA, United Kingdom',
    });
    const locations = await rowsOf('client_locations', tenant, client.client_id);
    expect(locations).toHaveLength(1);
    expect(locations[0]).toMatchObject({ country_code: 'GB', is_default: true, is_active: true, email: 'billing@located.test', phone: '+44 20 7946 0000' });
    const [created] = await eventsOf(t, tenant, client.client_id);
    expect(created!.payload.location_id).toBe(locations[0]!.location_id);
  });

  it('answers 400 when email or phone_no come without a location, explaining where they are stored', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/clients', { client_name: 'No Location', billing_cycle: 'monthly', email: 'a@b.test' });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.message).toMatch(/default location.*location.*country_code and country_name/);
    const phone = await admin.post('/api/v1/clients', { client_name: 'No Location', billing_cycle: 'monthly', phone_no: '123' });
    expectError(phone, 400, 'VALIDATION_ERROR');
  });

  it('answers 400 for a missing required field, an unknown field, a bad enum, currency or country, and an unknown query parameter', async () => {
    const { admin } = await makeTenant(t);
    const bodies = [
      { client_name: 'Missing cycle' },
      { billing_cycle: 'monthly' },
      { client_name: 'X', billing_cycle: 'monthly', website: 'https://x.test' },
      { client_name: 'X', billing_cycle: 'fortnightly' },
      { client_name: 'X', billing_cycle: 'monthly', client_type: 'partnership' },
      { client_name: 'X', billing_cycle: 'monthly', default_currency_code: 'XYZ' },
      { client_name: 'X', billing_cycle: 'monthly', client_since: '2021-02-30' },
      { client_name: '   ', billing_cycle: 'monthly' },
      { client_name: 'X'.repeat(256), billing_cycle: 'monthly' },
      { client_name: 'X', billing_cycle: 'monthly', is_inactive: 'true' },
      { client_name: 'X', billing_cycle: 'monthly', location: { country_code: 'QQ', country_name: 'Nowhere' } },
      { client_name: 'X', billing_cycle: 'monthly', location: { country_code: 'US' } },
    ];
    for (const body of bodies) expectError(await admin.post('/api/v1/clients', body), 400, 'VALIDATION_ERROR');
    const query = await admin.post('/api/v1/clients?dry_run=true', { client_name: 'X', billing_cycle: 'monthly' });
    expectError(query, 400, 'VALIDATION_ERROR');
    expect(query.json().error.details).toEqual([{ path: 'querystring.dry_run', message: 'unknown query parameter' }]);
  });

  it('answers 409 for a name that exists already in another case, but allows it in another tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const first = await makeClient(a.admin, { client_name: 'Globex' });
    const res = await a.admin.post('/api/v1/clients', { client_name: ' GLOBEX ', billing_cycle: 'monthly' });
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ client_id: first.client_id });
    expectStatus(await b.admin.post('/api/v1/clients', { client_name: 'Globex', billing_cycle: 'monthly' }), 201);
  });

  it('answers 401 without an API key and 403 to a Viewer', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/clients', { client_name: 'X', billing_cycle: 'monthly' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await viewer.api.post('/api/v1/clients', { client_name: 'X', billing_cycle: 'monthly' });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details).toEqual({ required: ['client:create'] });
  });
});

describe('GET /api/v1/clients/{id}', () => {
  it('returns the client with an ETag and answers 304 to a matching If-None-Match', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Initech' });
    const res = await admin.get(`/api/v1/clients/${client.client_id}`);
    expectStatus(res, 200);
    expect(res.json().data).toEqual(client);
    const again = await admin.get(`/api/v1/clients/${client.client_id}`, { 'if-none-match': String(res.headers.etag) });
    expectStatus(again, 304);
  });

  it('answers 400 for a malformed id or an unknown query parameter', async () => {
    const { admin } = await makeTenant(t);
    expectError(await admin.get('/api/v1/clients/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`/api/v1/clients/${randomId()}?expand=all`), 400, 'VALIDATION_ERROR');
  });

  it('answers 401 without a key, 403 without client:read, and 404 for an unknown id or another tenant\'s client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    expectError(await anonymous(t).get(`/api/v1/clients/${client.client_id}`), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, a.tenant, { role: undefined });
    expectError(await noRole.api.get(`/api/v1/clients/${client.client_id}`), 403, 'FORBIDDEN');
    expectError(await a.admin.get(`/api/v1/clients/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/clients/${client.client_id}`), 404, 'NOT_FOUND');
  });

  it('shows a client-portal user their own client only', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    expectStatus(await portal.api.get(`/api/v1/clients/${own.client_id}`), 200);
    expectError(await portal.api.get(`/api/v1/clients/${other.client_id}`), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/clients/{id}', () => {
  it('updates the given fields only, bumps updated_at, renames the default billing profile and emits client.updated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { client_name: 'Old Name', payment_terms: 'Net 15' });
    const res = await admin.put(`/api/v1/clients/${client.client_id}`, {
      client_name: 'New Name',
      billing_cycle: 'annually',
      default_currency_code: 'gbp',
      client_since: '2019-05-01',
      payment_terms: 'Net 15',
    });
    expectStatus(res, 200);
    const updated = res.json().data;
    expect(updated).toMatchObject({
      client_name: 'New Name',
      billing_cycle: 'annually',
      default_currency_code: 'GBP',
      client_since: '2019-05-01',
      payment_terms: 'Net 15',
      created_at: client.created_at,
    });
    expect(updated.updated_at >= client.updated_at).toBe(true);
    expect(res.headers.etag).toBeTruthy();
    expect(await getClient(admin, client.client_id)).toEqual(updated);

    const [profile] = await rowsOf('client_billing_profiles', tenant, client.client_id);
    expect(profile!.name).toBe('New Name');
    const events = await eventsOf(t, tenant, client.client_id);
    expect(events.map((e) => e.event_type)).toEqual(['client.created', 'client.updated']);
    expect(events[1]!.payload).toEqual({
      client_id: client.client_id,
      changed_fields: ['client_name', 'billing_cycle', 'default_currency_code', 'client_since'],
    });
  });

  it('changes nothing and emits nothing when the body matches the current values', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { billing_cycle: 'weekly' });
    const res = await admin.put(`/api/v1/clients/${client.client_id}`, { billing_cycle: 'weekly', client_name: client.client_name });
    expectStatus(res, 200);
    expect(res.json().data).toEqual(client);
    expect((await eventsOf(t, tenant, client.client_id)).map((e) => e.event_type)).toEqual(['client.created']);
  });

  it('writes email and phone_no to the default active location', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { location: { ...US, city: 'Springfield' } });
    const res = await admin.put(`/api/v1/clients/${client.client_id}`, { email: 'hello@spring.test', phone_no: '555-0100' });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ email: 'hello@spring.test', phone_no: '555-0100', address: 'Springfield, United States' });
    const [location] = await rowsOf('client_locations', tenant, client.client_id);
    expect(location).toMatchObject({ email: 'hello@spring.test', phone: '555-0100' });
    const events = await eventsOf(t, tenant, client.client_id);
    expect(events.at(-1)!.payload).toEqual({ client_id: client.client_id, changed_fields: ['email', 'phone_no'] });
  });

  it('answers 422 when email or phone_no are sent for a client without a default location', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const res = await admin.put(`/api/v1/clients/${client.client_id}`, { email: 'x@y.test' });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.message).toMatch(/no default active location/);
  });

  it('answers 400 for an empty body, an unknown field, a bad value or a malformed id', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = `/api/v1/clients/${client.client_id}`;
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { notes: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { location: US }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { default_currency_code: 'ABC' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, { client_name: '' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put('/api/v1/clients/not-a-uuid', { client_name: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('answers 409 when the new name belongs to another client, and allows a change of case', async () => {
    const { admin } = await makeTenant(t);
    await makeClient(admin, { client_name: 'Taken' });
    const client = await makeClient(admin, { client_name: 'Mine' });
    expectError(await admin.put(`/api/v1/clients/${client.client_id}`, { client_name: 'taken' }), 409, 'CONFLICT');
    const res = await admin.put(`/api/v1/clients/${client.client_id}`, { client_name: 'MINE' });
    expectStatus(res, 200);
    expect(res.json().data.client_name).toBe('MINE');
  });

  it('honours If-Match: 412 on a stale ETag, 200 on the current one', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = `/api/v1/clients/${client.client_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    const first = await admin.put(url, { payment_terms: 'Net 7' }, { 'if-match': etag });
    expectStatus(first, 200);
    expect(first.headers.etag).not.toBe(etag);
    const stale = await admin.put(url, { payment_terms: 'Net 9' }, { 'if-match': etag });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect(stale.json().error.details.current_etag).toBe(first.headers.etag);
  });

  it('answers 409 for a merged (tombstoned) client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    await tombstone(t, tenant, source.client_id, target.client_id);
    const res = await admin.put(`/api/v1/clients/${source.client_id}`, { payment_terms: 'Net 30' });
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.message).toMatch(/merged into client .* read-only/);
    expect((await getClient(admin, source.client_id)).merged_into_client_id).toBe(target.client_id);
  });

  it('answers 401, 403 to a Viewer, and 404 for an unknown or foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}`;
    expectError(await apiFor(t, 'psa_nope').put(url, { payment_terms: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { payment_terms: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(`/api/v1/clients/${randomId()}`, { payment_terms: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { payment_terms: 'x' }), 404, 'NOT_FOUND');
  });

  it('lets a Client Admin update their own client but not another one', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: own.client_id });
    expectStatus(await portal.api.put(`/api/v1/clients/${own.client_id}`, { payment_terms: 'Net 5' }), 200);
    expectError(await portal.api.put(`/api/v1/clients/${other.client_id}`, { payment_terms: 'Net 5' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/clients/{id}', () => {
  it('deletes the client with its locations and billing profiles and emits client.deleted', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin, { location: US });
    await makeLocation(admin, client.client_id, { location_name: 'Branch' });
    const res = await admin.delete(`/api/v1/clients/${client.client_id}`);
    expectStatus(res, 204);
    expect(res.body).toBe('');
    expectError(await admin.get(`/api/v1/clients/${client.client_id}`), 404, 'NOT_FOUND');
    expect(await rowsOf('client_locations', tenant, client.client_id)).toHaveLength(0);
    expect(await rowsOf('client_billing_profiles', tenant, client.client_id)).toHaveLength(0);
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)).toMatchObject({
      event_type: 'client.deleted',
      payload: { client_id: client.client_id },
    });
  });

  it('answers 409 listing the dependent counts while contacts belong to the client', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    for (let i = 0; i < 3; i++) await makeContact(admin, { client_id: client.client_id });
    const res = await admin.delete(`/api/v1/clients/${client.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ contacts: 3 });
    expect(res.json().error.message).toMatch(/3 contacts/);
    expectStatus(await admin.get(`/api/v1/clients/${client.client_id}`), 200);
  });

  it('counts client-portal users as dependents too', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeContact(admin, { client_id: client.client_id });
    await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    const res = await admin.delete(`/api/v1/clients/${client.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ contacts: 1, portal_users: 1 });
  });

  it('answers 409 for a tombstone and for a client that others were merged into', async () => {
    const { tenant, admin } = await makeTenant(t);
    const source = await makeClient(admin);
    const target = await makeClient(admin);
    await tombstone(t, tenant, source.client_id, target.client_id);
    expectError(await admin.delete(`/api/v1/clients/${source.client_id}`), 409, 'CONFLICT');
    const res = await admin.delete(`/api/v1/clients/${target.client_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ merged_clients: 1 });
  });

  it('honours If-Match with 412 on a stale ETag', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = `/api/v1/clients/${client.client_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    expectStatus(await admin.put(url, { tax_id_number: 'T-1' }), 200);
    expectError(await admin.delete(url, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    const current = String((await admin.get(url)).headers.etag);
    expectStatus(await admin.delete(url, { 'if-match': current }), 204);
  });

  it('answers 400 for a malformed id, 401, 403 to a Viewer, and 404 for an unknown or foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}`;
    expectError(await a.admin.delete('/api/v1/clients/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(url), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(url), 403, 'FORBIDDEN');
    expectError(await a.admin.delete(`/api/v1/clients/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(url), 404, 'NOT_FOUND');
    expectStatus(await a.admin.get(url), 200);
  });
});
