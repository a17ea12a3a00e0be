import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import { createUser, makeClientRecord, makeRole, randomId, userEvents } from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

describe('GET/PUT /api/v1/users/{id}/preferences', () => {
  it('starts empty, merges settings, deletes keys set to null, and stores them', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const url = `/api/v1/users/${me.userId}/preferences`;
    const empty = await me.api.get(url);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({ data: {} });
    const first = await me.api.put(url, { theme: 'dark', 'ui.density': 'compact', dashboard: { widgets: ['tickets', 'sla'], columns: 3 }, beta: true });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({ beta: true, dashboard: { columns: 3, widgets: ['tickets', 'sla'] }, theme: 'dark', 'ui.density': 'compact' });
    const second = await me.api.put(url, { theme: 'light', beta: null, 'notify_email': false, missing: null });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data).toEqual({ dashboard: { columns: 3, widgets: ['tickets', 'sla'] }, notify_email: false, theme: 'light', 'ui.density': 'compact' });
    const read = await me.api.get(url);
    expect(read.json().data).toEqual(second.json().data);
    expect(read.headers.etag).toBe(second.headers.etag);
    const row = await t.database.db.selectFrom('users').select('preferences').where('tenant', '=', tenant).where('user_id', '=', me.userId).executeTakeFirstOrThrow();
    expect(row.preferences).toEqual(second.json().data);
    // Preferences are not part of the user resource: no user.updated event.
    expect(await userEvents(t, tenant, me.userId)).toEqual([]);
  });

  it('honours If-Match and If-None-Match', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const url = `/api/v1/users/${me.userId}/preferences`;
    const etag = String((await me.api.put(url, { a: 1 })).headers.etag);
    expect((await me.api.get(url, { 'if-none-match': etag })).statusCode).toBe(304);
    expectError(await me.api.put(url, { a: 2 }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expect((await me.api.put(url, { a: 2 }, { 'if-match': etag })).statusCode).toBe(200);
    expect((await me.api.get(url)).json().data).toEqual({ a: 2 });
  });

  it('bounds keys (400) and size (413)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const url = `/api/v1/users/${me.userId}/preferences`;
    for (const body of [{ 'bad key': 1 }, { ['k'.repeat(65)]: 1 }, { '': 1 }, { 'a/b': 1 }, [1, 2], Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))]) {
      expectError(await me.api.put(url, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await me.api.request({ method: 'PUT', url, payload: '"text"', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
    const fifty = (offset: number) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${offset + i}`, i]));
    expect((await me.api.put(url, fifty(0))).statusCode).toBe(200);
    expect((await me.api.put(url, fifty(50))).statusCode).toBe(200);
    const over = await me.api.put(url, { one_more: true });
    expectError(over, 400, 'VALIDATION_ERROR');
    expect(over.json().error.message).toContain('101');
    expect((await me.api.put(url, { k0: null, one_more: true })).statusCode).toBe(200);

    const other = await makeUser(t, tenant, {});
    const otherUrl = `/api/v1/users/${other.userId}/preferences`;
    expect((await other.api.put(otherUrl, { notes: 'x'.repeat(8000) })).statusCode).toBe(200);
    const tooBig = await other.api.put(otherUrl, { more: 'y'.repeat(9000) });
    expectError(tooBig, 413, 'PAYLOAD_TOO_LARGE');
    expect(tooBig.json().error.details.limit_bytes).toBe(16384);
    expect(Object.keys((await other.api.get(otherUrl)).json().data)).toEqual(['notes']);
  });

  it('self-service for yourself; user:read / user:update for others; portal keys stay in their client', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const url = `/api/v1/users/${adminUserId}/preferences`;
    expectError(await me.api.get(url), 403, 'FORBIDDEN');
    expect((await viewer.api.get(url)).statusCode).toBe(200);
    const denied = await viewer.api.put(url, { theme: 'pink' });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:update']);
    expect((await admin.put(`/api/v1/users/${me.userId}/preferences`, { theme: 'set-by-admin' })).statusCode).toBe(200);
    expect((await me.api.get(`/api/v1/users/${me.userId}/preferences`)).json().data).toEqual({ theme: 'set-by-admin' });
    const client = await makeClientRecord(admin);
    const portal = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:read', 'user:update'], { clientPortal: true }), userType: 'client', clientId: client });
    expectError(await portal.api.get(url), 404, 'NOT_FOUND');
    const colleague = await createUser(admin, { user_type: 'client', client_id: client });
    expect((await portal.api.get(`/api/v1/users/${colleague.user_id}/preferences`)).statusCode).toBe(200);
  });

  it('answers 401 without a key and 404 for unknown or foreign users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    expectError(await anonymous(t).get(`/api/v1/users/${a.adminUserId}/preferences`), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).put(`/api/v1/users/${a.adminUserId}/preferences`, { a: 1 }), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/preferences`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/users/${a.adminUserId}/preferences`), 404, 'NOT_FOUND');
    expectError(await b.admin.put(`/api/v1/users/${a.adminUserId}/preferences`, { a: 1 }), 404, 'NOT_FOUND');
    expect((await a.admin.get(`/api/v1/users/${a.adminUserId}/preferences`)).json().data).toEqual({});
  });
});
