import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import {
  US,
  anonymous,
  eventsOf,
  expectError,
  expectStatus,
  getClient,
  makeClient,
  makeLocation,
  randomId,
  tombstone,
  type LocationJson,
} from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function locations(api: Api, clientId: string): Promise<LocationJson[]> {
  const res = await api.get(`/api/v1/clients/${clientId}/locations`);
  expectStatus(res, 200);
  return res.json().data as LocationJson[];
}

const defaults = async (api: Api, clientId: string) =>
  (await locations(api, clientId)).filter((l) => l.is_default).map((l) => l.location_name);

describe('GET /api/v1/clients/{id}/locations', () => {
  it('lists the default first, then by name', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeLocation(admin, client.client_id, { location_name: 'Zulu HQ' });
    await makeLocation(admin, client.client_id, { location_name: 'Bravo' });
    await makeLocation(admin, client.client_id, { location_name: 'alpha', is_active: false });
    const list = await locations(admin, client.client_id);
    expect(list.map((l) => [l.location_name, l.is_default, l.is_active])).toEqual([
      ['Zulu HQ', true, true],
      ['alpha', false, false],
      ['Bravo', false, true],
    ]);
  });

  it('answers 400, 401, 403 and 404 as for every client sub-resource', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}/locations`;
    expectError(await a.admin.get('/api/v1/clients/not-a-uuid/locations'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${url}?page=1`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    const noRole = await makeUser(t, a.tenant, { role: undefined });
    expectError(await noRole.api.get(url), 403, 'FORBIDDEN');
    expectError(await a.admin.get(`/api/v1/clients/${randomId()}/locations`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
  });

  it('shows a client-portal user the locations of their own client only', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin, { location: US });
    const other = await makeClient(admin, { location: US });
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    expect(await locations(portal.api, own.client_id)).toHaveLength(1);
    expectError(await portal.api.get(`/api/v1/clients/${other.client_id}/locations`), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/clients/{id}/locations/{locationId}', () => {
  it('returns one location with an ETag; 404 for another client\'s location', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const other = await makeClient(admin);
    const loc = await makeLocation(admin, client.client_id, { location_name: 'Main' });
    const res = await admin.get(`/api/v1/clients/${client.client_id}/locations/${loc.location_id}`);
    expectStatus(res, 200);
    expect(res.json().data).toEqual(loc);
    expect(res.headers.etag).toBeTruthy();
    expectError(await admin.get(`/api/v1/clients/${other.client_id}/locations/${loc.location_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/clients/${client.client_id}/locations/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`/api/v1/clients/${client.client_id}/locations/nope`), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /api/v1/clients/{id}/locations', () => {
  it('makes the first active location the default, upper-cases the country, bumps the client and emits client.updated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await sleep(5);
    const res = await admin.post(`/api/v1/clients/${client.client_id}/locations`, {
      location_name: 'HQ',
      address_line1: '10 Downing St',
      city: 'London',
      country_code: 'gb',
      country_name: 'United Kingdom',
      email: 'hq@x.test',
      phone: '0207',
      is_default: false,
    });
    expectStatus(res, 201);
    const loc = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/clients/${client.client_id}/locations/${loc.location_id}`);
    expect(loc).toMatchObject({ client_id: client.client_id, country_code: 'GB', is_default: true, is_active: true, address_line2: null });

    const after = await getClient(admin, client.client_id);
    expect(after).toMatchObject({ email: 'hq@x.test', phone_no: '0207', address: '10 Downing St, London, United Kingdom' });
    expect(after.updated_at > client.updated_at).toBe(true);
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)).toMatchObject({
      event_type: 'client.updated',
      payload: { client_id: client.client_id, changed_fields: ['locations'], location_id: loc.location_id },
    });
  });

  it('moves the default to a new location sent with is_default: true', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeLocation(admin, client.client_id, { location_name: 'Old', email: 'old@x.test' });
    await makeLocation(admin, client.client_id, { location_name: 'Side' });
    expect(await defaults(admin, client.client_id)).toEqual(['Old']);
    await makeLocation(admin, client.client_id, { location_name: 'New', email: 'new@x.test', is_default: true });
    expect(await defaults(admin, client.client_id)).toEqual(['New']);
    expect((await getClient(admin, client.client_id)).email).toBe('new@x.test');
  });

  it('keeps an inactive first location out of the default', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const loc = await makeLocation(admin, client.client_id, { is_active: false, email: 'x@x.test' });
    expect(loc).toMatchObject({ is_default: false, is_active: false });
    expect((await getClient(admin, client.client_id)).email).toBeNull();
  });

  it('answers 400 for an unknown country, missing country fields, unknown fields, and a default that is inactive', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = `/api/v1/clients/${client.client_id}/locations`;
    for (const body of [
      { country_code: 'XX', country_name: 'Nowhere' },
      { country_code: 'USA', country_name: 'United States' },
      { country_name: 'United States' },
      { country_code: 'US' },
      { ...US, country_name: '  ' },
      { ...US, fax: '123' },
      { ...US, email: 'not-an-email' },
      { ...US, postal_code: '1'.repeat(21) },
      { ...US, is_default: true, is_active: false },
    ]) {
      expectError(await admin.post(url, body), 400, 'VALIDATION_ERROR');
    }
    expect(await locations(admin, client.client_id)).toHaveLength(0);
  });

  it('answers 401, 403 to a Viewer, 404 for an unknown or foreign client and 409 for a tombstone', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const target = await makeClient(a.admin);
    const url = `/api/v1/clients/${client.client_id}/locations`;
    expectError(await anonymous(t).post(url, US), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.post(url, US), 403, 'FORBIDDEN');
    expectError(await a.admin.post(`/api/v1/clients/${randomId()}/locations`, US), 404, 'NOT_FOUND');
    expectError(await b.admin.post(url, US), 404, 'NOT_FOUND');
    await tombstone(t, a.tenant, client.client_id, target.client_id);
    expectError(await a.admin.post(url, US), 409, 'CONFLICT');
  });
});

describe('PUT /api/v1/clients/{id}/locations/{locationId}', () => {
  it('updates the given fields and the client\'s view of its default location', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const loc = await makeLocation(admin, client.client_id, { location_name: 'HQ', city: 'Paris', country_code: 'FR', country_name: 'France' });
    const res = await admin.put(`/api/v1/clients/${client.client_id}/locations/${loc.location_id}`, { city: 'Lyon', postal_code: '69001', email: 'lyon@x.test' });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ location_name: 'HQ', city: 'Lyon', postal_code: '69001', email: 'lyon@x.test', is_default: true });
    expect(res.headers.etag).toBeTruthy();
    expect(await getClient(admin, client.client_id)).toMatchObject({ email: 'lyon@x.test', address: 'Lyon, 69001, France' });
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)!.payload).toEqual({
      client_id: client.client_id,
      changed_fields: ['locations'],
      location_id: loc.location_id,
    });
  });

  it('moves the default with is_default: true and clears the old one', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeLocation(admin, client.client_id, { location_name: 'A' });
    const b = await makeLocation(admin, client.client_id, { location_name: 'B' });
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}/locations/${b.location_id}`, { is_default: true }), 200);
    expect(await defaults(admin, client.client_id)).toEqual(['B']);
  });

  it('promotes the oldest other active location when the default is deactivated or unset', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const a = await makeLocation(admin, client.client_id, { location_name: 'A' });
    await makeLocation(admin, client.client_id, { location_name: 'B', is_active: false });
    const c = await makeLocation(admin, client.client_id, { location_name: 'C', email: 'c@x.test' });
    await makeLocation(admin, client.client_id, { location_name: 'D' });
    const res = await admin.put(`/api/v1/clients/${client.client_id}/locations/${a.location_id}`, { is_active: false });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ is_active: false, is_default: false });
    expect(await defaults(admin, client.client_id)).toEqual(['C']);
    expect((await getClient(admin, client.client_id)).email).toBe('c@x.test');
    expectStatus(await admin.put(`/api/v1/clients/${client.client_id}/locations/${c.location_id}`, { is_default: false }), 200);
    expect(await defaults(admin, client.client_id)).toEqual(['D']);
  });

  it('leaves the client without a default when its only active location is deactivated, and restores it on reactivation', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin, { email: 'only@x.test', location: { ...US, location_name: 'Only' } });
    const [only] = await locations(admin, client.client_id);
    const url = `/api/v1/clients/${client.client_id}/locations/${only!.location_id}`;
    expectStatus(await admin.put(url, { is_active: false }), 200);
    expect(await defaults(admin, client.client_id)).toEqual([]);
    expect((await getClient(admin, client.client_id)).email).toBeNull();
    const res = await admin.put(url, { is_active: true });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ is_active: true, is_default: true });
    expect((await getClient(admin, client.client_id)).email).toBe('only@x.test');
  });

  it('answers 409 when unsetting the default of the only active location, and 422 when making an inactive location the default', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const only = await makeLocation(admin, client.client_id, { location_name: 'Only' });
    const idle = await makeLocation(admin, client.client_id, { location_name: 'Idle', is_active: false });
    const base = `/api/v1/clients/${client.client_id}/locations`;
    const unset = await admin.put(`${base}/${only.location_id}`, { is_default: false });
    expectError(unset, 409, 'CONFLICT');
    expect(unset.json().error.message).toMatch(/only active location/);
    expectError(await admin.put(`${base}/${idle.location_id}`, { is_default: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`${base}/${idle.location_id}`, { is_default: true, is_active: false }), 400, 'VALIDATION_ERROR');
    const both = await admin.put(`${base}/${idle.location_id}`, { is_default: true, is_active: true });
    expectStatus(both, 200);
    expect(await defaults(admin, client.client_id)).toEqual(['Idle']);
  });

  it('honours If-Match and answers 409 for a tombstone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const target = await makeClient(admin);
    const loc = await makeLocation(admin, client.client_id);
    const url = `/api/v1/clients/${client.client_id}/locations/${loc.location_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    expectStatus(await admin.put(url, { city: 'One' }, { 'if-match': etag }), 200);
    expectError(await admin.put(url, { city: 'Two' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    await tombstone(t, tenant, client.client_id, target.client_id);
    expectError(await admin.put(url, { city: 'Three' }), 409, 'CONFLICT');
  });

  it('answers 400, 401, 403 to a Viewer and 404 for unknown or foreign locations', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const loc = await makeLocation(a.admin, client.client_id);
    const url = `/api/v1/clients/${client.client_id}/locations/${loc.location_id}`;
    expectError(await a.admin.put(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(url, { country_code: 'ZZ' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(url, { client_id: other.client_id }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(`/api/v1/clients/${client.client_id}/locations/bad`, { city: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).put(url, { city: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(url, { city: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(`/api/v1/clients/${client.client_id}/locations/${randomId()}`, { city: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.put(`/api/v1/clients/${other.client_id}/locations/${loc.location_id}`, { city: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(url, { city: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/clients/{id}/locations/{locationId}', () => {
  it('deletes a location and promotes the oldest active one when it was the default', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const a = await makeLocation(admin, client.client_id, { location_name: 'A' });
    await makeLocation(admin, client.client_id, { location_name: 'B', is_active: false });
    await makeLocation(admin, client.client_id, { location_name: 'C' });
    await makeLocation(admin, client.client_id, { location_name: 'D' });
    const res = await admin.delete(`/api/v1/clients/${client.client_id}/locations/${a.location_id}`);
    expectStatus(res, 204);
    expect((await locations(admin, client.client_id)).map((l) => l.location_name)).toEqual(['C', 'B', 'D']);
    expect(await defaults(admin, client.client_id)).toEqual(['C']);
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)!.payload).toEqual({
      client_id: client.client_id,
      changed_fields: ['locations'],
      location_id: a.location_id,
    });
  });

  it('honours If-Match and answers 409 for a tombstone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const target = await makeClient(admin);
    const loc = await makeLocation(admin, client.client_id);
    const url = `/api/v1/clients/${client.client_id}/locations/${loc.location_id}`;
    expectError(await admin.delete(url, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    await tombstone(t, tenant, client.client_id, target.client_id);
    expectError(await admin.delete(url), 409, 'CONFLICT');
    expect(await locations(admin, client.client_id)).toHaveLength(1);
  });

  it('answers 400, 401, 403 to a Viewer and 404 for unknown or foreign locations', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    const other = await makeClient(a.admin);
    const loc = await makeLocation(a.admin, client.client_id);
    const url = `/api/v1/clients/${client.client_id}/locations/${loc.location_id}`;
    expectError(await a.admin.delete(`/api/v1/clients/${client.client_id}/locations/bad`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(url), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(url), 403, 'FORBIDDEN');
    expectError(await a.admin.delete(`/api/v1/clients/${client.client_id}/locations/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/clients/${other.client_id}/locations/${loc.location_id}`), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(url), 404, 'NOT_FOUND');
    expect(await locations(a.admin, client.client_id)).toHaveLength(1);
  });
});
