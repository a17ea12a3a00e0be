import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { apiFor, makeTenant, makeUser, unique, type Api } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, expectStatus, randomId } from '../../../test/client-factories.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { newId } from '../../platform/ids.ts';
import { issueApiKey } from '../api-keys/index.ts';
import { insertUser } from '../users/index.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function roleId(tenant: string, name: string): Promise<string> {
  const row = await t.database.db.selectFrom('roles').select('role_id').where('tenant', '=', tenant).where('role_name', '=', name).executeTakeFirstOrThrow();
  return row.role_id;
}

async function roleNames(api: Api, userId: string): Promise<string[]> {
  const res = await api.get(`/api/v1/users/${userId}/roles`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.map((r: { role_name: string }) => r.role_name);
}

async function activityOf(tenant: string, userId: string) {
  return t.database.db
    .selectFrom('user_activity')
    .select(['activity_type', 'actor_user_id', 'details'])
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('activity_id')
    .execute();
}

/** DELETE with a JSON body (the test client's delete() sends none). */
const deleteWithBody = (api: Api, url: string, body: unknown, headers: Record<string, string> = {}) =>
  api.request({ method: 'DELETE', url, payload: body as object, headers });

describe('acceptance: a role given through the API governs the user’s API key at once', () => {
  it('an Admin gives a new Technician a role; the key works where the role allows, is refused elsewhere, and is refused at once after the role is removed', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    // The users HTTP API is another area's: the user and their key are made directly, with no role.
    const tech = await withTransaction(t.database.db, async (trx) => {
      const email = `${unique('tech')}@example.test`;
      const user = await insertUser(trx, {
        tenant, user_id: newId(), username: email, email, password_hash: null, first_name: 'Tess', last_name: 'Tech',
        user_type: 'internal', client_id: null, contact_id: null,
      });
      const key = await issueApiKey(trx, tenant, user.user_id, { name: 'tech key' });
      return { userId: user.user_id, api: apiFor(t, key.api_key) };
    });

    // No role yet: nothing is allowed.
    expectError(await tech.api.get('/api/v1/clients'), 403, 'FORBIDDEN');

    const technician = await roleId(tenant, 'Technician');
    const given = await admin.post(`/api/v1/users/${tech.userId}/roles`, { role_ids: [technician] });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json().data.map((r: { role_name: string }) => r.role_name)).toEqual(['Technician']);

    // Allowed by the role.
    expect((await tech.api.get('/api/v1/clients')).statusCode).toBe(200);
    expect((await tech.api.get('/api/v1/contacts')).statusCode).toBe(200);
    // Not allowed by it: 403 naming the permission.
    const refused = await tech.api.post('/api/v1/clients', { client_name: 'Nope Ltd', billing_cycle: 'monthly' });
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.json().error.details.required).toEqual(['client:create']);
    expect(refused.json().error.message).toContain('client:create');

    const cleared = await admin.put(`/api/v1/users/${tech.userId}/roles`, { role_ids: [] });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data).toEqual([]);
    const after = await tech.api.get('/api/v1/clients');
    expectError(after, 403, 'FORBIDDEN');
    expect(after.json().error.details.required).toEqual(['client:read']);

    expect(await activityOf(tenant, tech.userId)).toEqual([
      { activity_type: 'role_change', actor_user_id: adminUserId, details: { added: ['Technician'], removed: [] } },
      { activity_type: 'role_change', actor_user_id: adminUserId, details: { added: [], removed: ['Technician'] } },
    ]);
  });

  it('a second app process sharing the database sees the change too (the NOTIFY reaches it)', async () => {
    const other = await buildTestApp({ database: t.database });
    try {
      const { admin, tenant } = await makeTenant(t);
      const { userId, api } = await makeUser(t, tenant, { role: 'Technician' });
      const remote = apiFor(other, api.key);
      expect((await remote.get('/api/v1/clients')).statusCode).toBe(200);
      expect((await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [] })).statusCode).toBe(200);
      await expect.poll(async () => (await remote.get('/api/v1/clients')).statusCode, { timeout: 5000 }).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe('GET /api/v1/users/{id}/roles', () => {
  it('lists a user’s roles by name, with an ETag', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Finance')] });
    const res = await admin.get(`/api/v1/users/${userId}/roles`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      { role_id: await roleId(tenant, 'Finance'), role_name: 'Finance', description: expect.any(String), is_builtin: true, is_client_portal: false },
      { role_id: await roleId(tenant, 'Viewer'), role_name: 'Viewer', description: expect.any(String), is_builtin: true, is_client_portal: false },
    ]);
    expect(res.headers.etag).toBeDefined();
  });

  it('lets any user read their own roles without user:read', async () => {
    const { tenant } = await makeTenant(t);
    const { userId, api } = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    expect(await roleNames(api, userId)).toEqual(['Client User']);
    const { userId: bare, api: bareApi } = await makeUser(t, tenant);
    expect(await roleNames(bareApi, bare)).toEqual([]);
  });

  it('needs user:read for someone else (403), a key (401), and answers 404 for unknown or foreign users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { api } = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    const denied = await api.get(`/api/v1/users/${a.adminUserId}/roles`);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:read']);
    expectError(await anonymous(t).get(`/api/v1/users/${a.adminUserId}/roles`), 401, 'UNAUTHORIZED');
    expectError(await b.admin.get(`/api/v1/users/${a.adminUserId}/roles`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/roles`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/users/nope/roles'), 400, 'VALIDATION_ERROR');
  });
});

describe('POST /api/v1/users/{id}/roles', () => {
  it('adds roles, keeps the ones already held, records role_change, emits user.updated and touches updated_at', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const before = await t.database.db.selectFrom('users').select('updated_at').where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirstOrThrow();
    const [viewer, technician, finance] = [await roleId(tenant, 'Viewer'), await roleId(tenant, 'Technician'), await roleId(tenant, 'Finance')];
    const res = await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [viewer, technician, finance] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((r: { role_name: string }) => r.role_name)).toEqual(['Finance', 'Technician', 'Viewer']);
    expect(await activityOf(tenant, userId)).toEqual([
      { activity_type: 'role_change', actor_user_id: adminUserId, details: { added: ['Finance', 'Technician'], removed: [] } },
    ]);
    const events = await eventsOf(t, tenant, userId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_type: 'user.updated', aggregate_type: 'user', payload: { user_id: userId, changed_fields: ['roles'], removed_role_ids: [] } });
    expect((events[0]!.payload.added_role_ids as string[]).sort()).toEqual([technician, finance].sort());
    const after = await t.database.db.selectFrom('users').select('updated_at').where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
  });

  it('is a no-op (no activity, no event) when the user already holds every role', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Viewer')] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await activityOf(tenant, userId)).toEqual([]);
    expect(await eventsOf(t, tenant, userId)).toEqual([]);
  });

  it('rejects role ids that are not roles of this tenant with 400 naming them', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { userId } = await makeUser(t, a.tenant);
    const foreign = await roleId(b.tenant, 'Viewer');
    const missing = randomId();
    const res = await a.admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(a.tenant, 'Viewer'), foreign, missing] });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.message).toContain(foreign);
    expect(res.json().error.message).toContain(missing);
    expect(await roleNames(a.admin, userId)).toEqual([]);
  });

  it('rejects malformed bodies with 400', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant);
    const viewer = await roleId(tenant, 'Viewer');
    for (const body of [{}, { role_ids: [] }, { role_ids: 'x' }, { role_ids: ['not-a-uuid'] }, { role_ids: [viewer, viewer] }, { role_ids: [viewer], extra: 1 }, { role_ids: Array.from({ length: 101 }, () => randomId()) }]) {
      expectError(await admin.post(`/api/v1/users/${userId}/roles`, body), 400, 'VALIDATION_ERROR');
    }
  });

  it('gives client-portal roles only to client users and internal roles only to the others (422)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const internal = await makeUser(t, tenant);
    const client = await makeUser(t, tenant, { userType: 'client', clientId: randomId() });
    const portalRole = await roleId(tenant, 'Client User');
    const techRole = await roleId(tenant, 'Technician');
    const wrong1 = await admin.post(`/api/v1/users/${internal.userId}/roles`, { role_ids: [portalRole] });
    expectError(wrong1, 422, 'UNPROCESSABLE');
    expect(wrong1.json().error.message).toContain('Client User');
    expectError(await admin.post(`/api/v1/users/${client.userId}/roles`, { role_ids: [techRole] }), 422, 'UNPROCESSABLE');
    expect((await admin.post(`/api/v1/users/${client.userId}/roles`, { role_ids: [portalRole] })).statusCode).toBe(200);
    expect((await admin.post(`/api/v1/users/${internal.userId}/roles`, { role_ids: [techRole] })).statusCode).toBe(200);
  });

  it('refuses to hand out permissions the caller does not hold (403)', async () => {
    const { tenant } = await makeTenant(t);
    const { api } = await makeUser(t, tenant, { role: 'Admin', scopes: ['user:update', 'user:read', 'ticket:read'] });
    const { userId } = await makeUser(t, tenant);
    const res = await api.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Admin')] });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toContain('role:delete');
  });

  it('needs user:update (403, also for oneself), a key (401); unknown or foreign users are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const manager = await makeUser(t, a.tenant, { role: 'Manager' });
    const viewer = await roleId(a.tenant, 'Viewer');
    const self = await manager.api.post(`/api/v1/users/${manager.userId}/roles`, { role_ids: [viewer] });
    expectError(self, 403, 'FORBIDDEN');
    expect(self.json().error.details.required).toEqual(['user:update']);
    expectError(await anonymous(t).post(`/api/v1/users/${manager.userId}/roles`, { role_ids: [viewer] }), 401, 'UNAUTHORIZED');
    expectError(await b.admin.post(`/api/v1/users/${manager.userId}/roles`, { role_ids: [await roleId(b.tenant, 'Viewer')] }), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`/api/v1/users/${randomId()}/roles`, { role_ids: [viewer] }), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/v1/users/{id}/roles', () => {
  it('replaces the whole set and records what was added and removed', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const res = await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Manager'), await roleId(tenant, 'Finance')] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((r: { role_name: string }) => r.role_name)).toEqual(['Finance', 'Manager']);
    expect(await activityOf(tenant, userId)).toEqual([
      { activity_type: 'role_change', actor_user_id: adminUserId, details: { added: ['Finance', 'Manager'], removed: ['Viewer'] } },
    ]);
  });

  it('refuses to take the Admin role from the last active Admin (409), allows it while another active Admin remains', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const res = await admin.put(`/api/v1/users/${adminUserId}/roles`, { role_ids: [await roleId(tenant, 'Viewer')] });
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ reason: 'last_admin', user_ids: [adminUserId] });
    expect(await roleNames(admin, adminUserId)).toEqual(['Admin']);

    // An inactive second Admin does not count.
    const dormant = await makeUser(t, tenant, { role: 'Admin' });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', dormant.userId).execute();
    expectError(await admin.put(`/api/v1/users/${adminUserId}/roles`, { role_ids: [] }), 409, 'CONFLICT');
    // Nor does removing Admin from an inactive user need another Admin.
    expect((await admin.put(`/api/v1/users/${dormant.userId}/roles`, { role_ids: [] })).statusCode).toBe(200);

    const second = await makeUser(t, tenant, { role: 'Admin' });
    const ok = await admin.put(`/api/v1/users/${adminUserId}/roles`, { role_ids: [await roleId(tenant, 'Viewer')] });
    expect(ok.statusCode, ok.body).toBe(200);
    expectError(await second.api.put(`/api/v1/users/${second.userId}/roles`, { role_ids: [] }), 409, 'CONFLICT');
  });

  it('two Admins removing their Admin role at the same time cannot both succeed', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const second = await makeUser(t, tenant, { role: 'Admin' });
    const [first, other] = await Promise.all([
      admin.put(`/api/v1/users/${adminUserId}/roles`, { role_ids: [] }),
      second.api.put(`/api/v1/users/${second.userId}/roles`, { role_ids: [] }),
    ]);
    expect([first.statusCode, other.statusCode].sort(), `${first.body} ${other.body}`).toEqual([200, 409]);
    const holders = await t.database.db.selectFrom('user_roles').select('user_id').where('tenant', '=', tenant).where('role_id', '=', await roleId(tenant, 'Admin')).execute();
    expect(holders).toHaveLength(1);
  });

  it('honours If-Match against the user’s current roles (412)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const etag = (await admin.get(`/api/v1/users/${userId}/roles`)).headers.etag as string;
    const finance = await roleId(tenant, 'Finance');
    expect((await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [finance] }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [] }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
  });

  it('rejects a missing list, unknown roles (400) and misfitting roles (422)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    expectError(await admin.put(`/api/v1/users/${userId}/roles`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [randomId()] }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Client Admin')] }), 422, 'UNPROCESSABLE');
    expect(await roleNames(admin, userId)).toEqual(['Viewer']);
  });

  it('needs user:update (403) and a key (401); foreign users are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { api, userId } = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await api.put(`/api/v1/users/${userId}/roles`, { role_ids: [] }), 403, 'FORBIDDEN');
    expectError(await anonymous(t).put(`/api/v1/users/${userId}/roles`, { role_ids: [] }), 401, 'UNAUTHORIZED');
    expectError(await b.admin.put(`/api/v1/users/${userId}/roles`, { role_ids: [] }), 404, 'NOT_FOUND');
    expect(await roleNames(a.admin, userId)).toEqual(['Technician']);
  });
});

describe('DELETE /api/v1/users/{id}/roles', () => {
  it('removes the roles named in the JSON body and answers with the roles left', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Finance')] });
    const res = await deleteWithBody(admin, `/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Viewer'), await roleId(tenant, 'Manager')] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((r: { role_name: string }) => r.role_name)).toEqual(['Finance']);
    expect((await activityOf(tenant, userId)).at(-1)).toEqual({ activity_type: 'role_change', actor_user_id: adminUserId, details: { added: [], removed: ['Viewer'] } });
    expect((await eventsOf(t, tenant, userId)).at(-1)).toMatchObject({ event_type: 'user.updated', payload: { changed_fields: ['roles'], added_role_ids: [], removed_role_ids: [await roleId(tenant, 'Viewer')] } });
  });

  it('also takes the ids from ?role_ids=a,b for clients that cannot send a DELETE body', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [await roleId(tenant, 'Finance'), await roleId(tenant, 'Technician')] });
    const res = await admin.delete(`/api/v1/users/${userId}/roles?role_ids=${await roleId(tenant, 'Viewer')},${await roleId(tenant, 'Finance')}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((r: { role_name: string }) => r.role_name)).toEqual(['Technician']);
  });

  it('works over a real HTTP connection with a JSON body', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}/api/v1/users/${userId}/roles`, {
      method: 'DELETE',
      headers: { 'x-api-key': admin.key, 'content-type': 'application/json' },
      body: JSON.stringify({ role_ids: [await roleId(tenant, 'Viewer')] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('rejects no ids, both forms at once, malformed or unknown ids with 400', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant, { role: 'Viewer' });
    const viewer = await roleId(tenant, 'Viewer');
    const url = `/api/v1/users/${userId}/roles`;
    expectError(await admin.delete(url), 400, 'VALIDATION_ERROR');
    expectError(await deleteWithBody(admin, url, {}), 400, 'VALIDATION_ERROR');
    expectError(await deleteWithBody(admin, `${url}?role_ids=${viewer}`, { role_ids: [viewer] }), 400, 'VALIDATION_ERROR');
    expectError(await admin.delete(`${url}?role_ids=${viewer},nope`), 400, 'VALIDATION_ERROR');
    expectError(await admin.delete(`${url}?role_ids=${viewer},${viewer}`), 400, 'VALIDATION_ERROR');
    expectError(await admin.delete(`${url}?role_ids=${randomId()}`), 400, 'VALIDATION_ERROR');
    expectError(await deleteWithBody(admin, url, { role_ids: [] }), 400, 'VALIDATION_ERROR');
    expect(await roleNames(admin, userId)).toEqual(['Viewer']);
  });

  it('refuses to take Admin from the last active Admin (409)', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    expectError(await deleteWithBody(admin, `/api/v1/users/${adminUserId}/roles`, { role_ids: [await roleId(tenant, 'Admin')] }), 409, 'CONFLICT');
  });

  it('needs user:update (403) and a key (401); unknown and foreign users are 404 even without ids', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { api, userId } = await makeUser(t, a.tenant, { role: 'Viewer' });
    const viewer = await roleId(a.tenant, 'Viewer');
    expectError(await deleteWithBody(api, `/api/v1/users/${userId}/roles`, { role_ids: [viewer] }), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete(`/api/v1/users/${userId}/roles?role_ids=${viewer}`), 401, 'UNAUTHORIZED');
    expectError(await b.admin.delete(`/api/v1/users/${userId}/roles`), 404, 'NOT_FOUND');
    expectError(await deleteWithBody(a.admin, `/api/v1/users/${randomId()}/roles`, { role_ids: [viewer] }), 404, 'NOT_FOUND');
    expect(await roleNames(a.admin, userId)).toEqual(['Viewer']);
  });
});

describe('GET /api/v1/users/{id}/permissions', () => {
  it('returns the sorted union of the permissions of the user’s roles', async () => {
    const { admin, tenant } = await makeTenant(t);
    const { userId } = await makeUser(t, tenant);
    const one = (await admin.post('/api/v1/roles', { role_name: 'One', permissions: ['ticket:read', 'asset:read'] })).json().data.role_id;
    const two = (await admin.post('/api/v1/roles', { role_name: 'Two', permissions: ['asset:read', 'client:update'] })).json().data.role_id;
    await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [one, two] });
    const res = await admin.get(`/api/v1/users/${userId}/permissions`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(['asset:read', 'client:update', 'ticket:read']);
  });

  it('lets a user read their own permissions without user:read; a user without roles has none', async () => {
    const { tenant } = await makeTenant(t);
    const { userId, api } = await makeUser(t, tenant);
    const res = await api.get(`/api/v1/users/${userId}/permissions`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([]);
  });

  it('needs user:read for others (403), a key (401); unknown, foreign (404) and malformed (400) ids', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { api } = await makeUser(t, a.tenant);
    expectError(await api.get(`/api/v1/users/${a.adminUserId}/permissions`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get(`/api/v1/users/${a.adminUserId}/permissions`), 401, 'UNAUTHORIZED');
    expectError(await b.admin.get(`/api/v1/users/${a.adminUserId}/permissions`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/permissions`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/users/1/permissions'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`/api/v1/users/${a.adminUserId}/permissions?x=1`), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /api/v1/user-roles', () => {
  async function seedUsers(tenant: string) {
    const mk = (username: string, email: string, first: string, last: string, inactive = false) =>
      t.database.db.insertInto('users').values({
        tenant, user_id: newId(), username, email, password_hash: null, first_name: first, last_name: last,
        user_type: 'internal', client_id: null, contact_id: null, is_inactive: inactive,
      }).returning('user_id').executeTakeFirstOrThrow();
    const carol = await mk('carol', 'carol@x.test', 'Carol', 'Zeta');
    const bob = await mk('Bob', 'zz-bob@x.test', 'Robert', 'Young', true);
    const dave = await mk('dave', 'dave@x.test', 'Dave', 'Xu');
    await t.database.db.insertInto('user_roles').values([
      { tenant, user_id: carol.user_id, role_id: await roleId(tenant, 'Viewer') },
      { tenant, user_id: carol.user_id, role_id: await roleId(tenant, 'Finance') },
      { tenant, user_id: bob.user_id, role_id: await roleId(tenant, 'Technician') },
    ]).execute();
    return { carol: carol.user_id, bob: bob.user_id, dave: dave.user_id };
  }

  it('lists every user (active and inactive) by username with roles ordered by name', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const u = await seedUsers(tenant);
    const res = await admin.get('/api/v1/user-roles');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.data.map((x: { user_id: string }) => x.user_id)).toEqual([adminUserId, u.bob, u.carol, u.dave]);
    expect(body.pagination).toMatchObject({ total: 4, page: 1, limit: 25 });
    expect(body.data[2]).toEqual({
      user_id: u.carol, username: 'carol', email: 'carol@x.test', first_name: 'Carol', last_name: 'Zeta', is_inactive: false,
      roles: [
        { role_id: await roleId(tenant, 'Finance'), role_name: 'Finance', description: expect.any(String) },
        { role_id: await roleId(tenant, 'Viewer'), role_name: 'Viewer', description: expect.any(String) },
      ],
    });
    expect(body.data[3].roles).toEqual([]);
  });

  it('filters by is_inactive only when given, searches names and emails, sorts and paginates', async () => {
    const { admin, tenant } = await makeTenant(t);
    const u = await seedUsers(tenant);
    const ids = async (q: string) => (await admin.get(`/api/v1/user-roles${q}`)).json().data.map((x: { user_id: string }) => x.user_id);
    expect(await ids('?is_inactive=true')).toEqual([u.bob]);
    expect((await ids('?is_inactive=false'))).not.toContain(u.bob);
    expect(await ids('?search=ROBERT')).toEqual([u.bob]);
    expect(await ids('?search=dave%20xu')).toEqual([u.dave]);
    expect(await ids('?search=zz-bob')).toEqual([u.bob]);
    expect(await ids('?search=zeta')).toEqual([u.carol]);
    expect(await ids('?sort=email&order=desc&limit=2')).toEqual([u.bob, u.dave]);
    const page2 = await admin.get('/api/v1/user-roles?limit=3&page=2');
    expect(page2.json().pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
  });

  it('accepts the list parameters every list has plus search and is_inactive (400 otherwise)', async () => {
    const { admin } = await makeTenant(t);
    expectStatus(await admin.get('/api/v1/user-roles?updated_since=2026-01-01T00:00:00.000Z&sort=updated_at'), 200);
    for (const q of ['?sort=role_name', '?is_inactive=maybe', '?limit=0', '?role_id=x']) {
      expectError(await admin.get(`/api/v1/user-roles${q}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('needs a key (401) and user:read (403), and never shows another tenant’s users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    expectError(await anonymous(t).get('/api/v1/user-roles'), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    const denied = await api.get('/api/v1/user-roles');
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:read']);
    const res = await b.admin.get('/api/v1/user-roles');
    expect(res.json().data.map((x: { user_id: string }) => x.user_id)).toEqual([b.adminUserId]);
  });
});
