import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import {
  anonymous,
  eventsOf,
  expectError,
  expectStatus,
  getClient,
  makeClient,
  randomId,
  tombstone,
} from '../../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const notesUrl = (clientId: string) => `/api/v1/clients/${clientId}/notes`;

describe('GET /api/v1/clients/{id}/notes', () => {
  it('returns null notes for a new client, with an ETag', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const res = await admin.get(notesUrl(client.client_id));
    expectStatus(res, 200);
    expect(res.json()).toEqual({ data: { notes: null, updated_at: null } });
    expect(res.headers.etag).toBeTruthy();
  });

  it('answers 400, 401, 403 without client:read, and 404 for an unknown or foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    expectError(await a.admin.get('/api/v1/clients/not-a-uuid/notes'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`${notesUrl(client.client_id)}?format=html`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(notesUrl(client.client_id)), 401, 'UNAUTHORIZED');
    const scoped = await makeUser(t, a.tenant, { role: 'Admin', scopes: ['contact:read'] });
    expectError(await scoped.api.get(notesUrl(client.client_id)), 403, 'FORBIDDEN');
    expectError(await a.admin.get(notesUrl(randomId())), 404, 'NOT_FOUND');
    expectError(await b.admin.get(notesUrl(client.client_id)), 404, 'NOT_FOUND');
  });

  it('keeps internal notes from client-portal users, even of their own client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    expectStatus(await admin.put(notesUrl(client.client_id), { notes: 'internal only' }), 200);
    const portal = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: client.client_id });
    expectError(await portal.api.get(notesUrl(client.client_id)), 403, 'FORBIDDEN');
    expectError(await portal.api.put(notesUrl(client.client_id), { notes: 'x' }), 403, 'FORBIDDEN');
  });
});

describe('PUT /api/v1/clients/{id}/notes', () => {
  it('stores markdown notes, emits client.updated and leaves the client\'s own updated_at alone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const notes = '# Escalation\n\n- call **Bob** first\n';
    const res = await admin.put(notesUrl(client.client_id), { notes });
    expectStatus(res, 200);
    expect(res.json().data.notes).toBe(notes);
    expect(res.json().data.updated_at).toMatch(/\.\d{3}Z$/);
    expect(res.headers.etag).toBeTruthy();
    const again = await admin.get(notesUrl(client.client_id));
    expect(again.json()).toEqual(res.json());
    expect(again.headers.etag).toBe(res.headers.etag);
    expect((await getClient(admin, client.client_id)).updated_at).toBe(client.updated_at);
    expect((await eventsOf(t, tenant, client.client_id)).at(-1)).toMatchObject({
      event_type: 'client.updated',
      payload: { client_id: client.client_id, changed_fields: ['notes'] },
    });
  });

  it('answers 400 for a missing, non-string, oversized or unknown field', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const url = notesUrl(client.client_id);
    for (const body of [{}, { notes: 5 }, { notes: null }, { notes: 'x'.repeat(100_001) }, { notes: 'x', format: 'md' }]) {
      expectError(await admin.put(url, body), 400, 'VALIDATION_ERROR');
    }
  });

  it('honours If-Match, and answers 409 for a tombstone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const target = await makeClient(admin);
    const url = notesUrl(client.client_id);
    const etag = String((await admin.get(url)).headers.etag);
    expectStatus(await admin.put(url, { notes: 'one' }, { 'if-match': etag }), 200);
    expectError(await admin.put(url, { notes: 'two' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    await tombstone(t, tenant, client.client_id, target.client_id);
    expectError(await admin.put(url, { notes: 'three' }), 409, 'CONFLICT');
    expect((await admin.get(url)).json().data.notes).toBe('one');
  });

  it('answers 401, 403 to a Viewer, and 404 for an unknown or foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    expectError(await anonymous(t).put(notesUrl(client.client_id), { notes: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(notesUrl(client.client_id), { notes: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(notesUrl(randomId()), { notes: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(notesUrl(client.client_id), { notes: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/clients/{id}/notes', () => {
  it('clears the notes and emits client.updated', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    expectStatus(await admin.put(notesUrl(client.client_id), { notes: 'temporary' }), 200);
    const res = await admin.delete(notesUrl(client.client_id));
    expectStatus(res, 204);
    const after = await admin.get(notesUrl(client.client_id));
    expect(after.json().data.notes).toBeNull();
    expect(after.json().data.updated_at).not.toBeNull();
    const events = await eventsOf(t, tenant, client.client_id);
    expect(events.map((e) => e.event_type)).toEqual(['client.created', 'client.updated', 'client.updated']);
  });

  it('honours If-Match, and answers 409 for a tombstone', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const target = await makeClient(admin);
    expectStatus(await admin.put(notesUrl(client.client_id), { notes: 'keep' }), 200);
    expectError(await admin.delete(notesUrl(client.client_id), { 'if-match': '"old"' }), 412, 'PRECONDITION_FAILED');
    await tombstone(t, tenant, client.client_id, target.client_id);
    expectError(await admin.delete(notesUrl(client.client_id)), 409, 'CONFLICT');
    expect((await admin.get(notesUrl(client.client_id))).json().data.notes).toBe('keep');
  });

  it('answers 400, 401, 403 to a Viewer, and 404 for an unknown or foreign client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClient(a.admin);
    expectError(await a.admin.delete('/api/v1/clients/123/notes'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(notesUrl(client.client_id)), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.delete(notesUrl(client.client_id)), 403, 'FORBIDDEN');
    expectError(await a.admin.delete(notesUrl(randomId())), 404, 'NOT_FOUND');
    expectError(await b.admin.delete(notesUrl(client.client_id)), 404, 'NOT_FOUND');
  });
});
