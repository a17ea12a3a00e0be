import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../test/client-factories.ts';
import { allPermissions, permissionResources } from '../../platform/auth/permissions.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface RoleJson {
  role_id: string;
  role_name: string;
  description: string | null;
  is_builtin: boolean;
  is_client_portal: boolean;
  permissions: string[];
  user_count: number;
  created_at: string;
  updated_at: string;
}

async function createRole(api: Api, body: Record<string, unknown> = {}): Promise<RoleJson> {
  const res = await api.post('/api/v1/roles', { role_name: unique('Role'), permissions: ['ticket:read'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as RoleJson;
}

async function builtin(api: Api, name: string): Promise<RoleJson> {
  const res = await api.get(`/api/v1/roles?search=${encodeURIComponent(name)}&is_builtin=true&limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as RoleJson[]).find((r) => r.role_name === name)!;
}

describe('GET /api/v1/roles', () => {
  it('lists the built-in roles of a new tenant by name, with sorted permissions and user counts', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get('/api/v1/roles');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.data.map((r: RoleJson) => r.role_name)).toEqual(['Admin', 'Client Admin', 'Client User', 'Finance', 'Manager', 'Technician', 'Viewer']);
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 7, totalPages: 1, hasNext: false, hasPrev: false });
    const adminRole = body.data[0] as RoleJson;
    expect(adminRole).toMatchObject({ is_builtin: true, is_client_portal: false, user_count: 1 });
    expect(adminRole.permissions).toEqual([...allPermissions()].sort());
    for (const r of body.data as RoleJson[]) expect(r.permissions).toEqual([...r.permissions].sort());
  });

  it('filters by is_client_portal and is_builtin, searches names and descriptions, and paginates', async () => {
    const { admin } = await makeTenant(t);
    await createRole(admin, { role_name: 'Dispatch lead', description: 'Runs the morning board' });
    const portal = await admin.get('/api/v1/roles?is_client_portal=true');
    expect(portal.json().data.map((r: RoleJson) => r.role_name)).toEqual(['Client Admin', 'Client User']);
    const custom = await admin.get('/api/v1/roles?is_builtin=false');
    expect(custom.json().data.map((r: RoleJson) => r.role_name)).toEqual(['Dispatch lead']);
    const byDescription = await admin.get('/api/v1/roles?search=MORNING');
    expect(byDescription.json().data.map((r: RoleJson) => r.role_name)).toEqual(['Dispatch lead']);
    const page2 = await admin.get('/api/v1/roles?limit=3&page=2&sort=role_name&order=desc');
    expect(page2.json().data.map((r: RoleJson) => r.role_name)).toEqual(['Finance', 'Dispatch lead', 'Client User']);
    expect(page2.json().pagination).toMatchObject({ total: 8, totalPages: 3, hasNext: true, hasPrev: true });
  });

  it('rejects unknown and out-of-range query parameters with 400', async () => {
    const { admin } = await makeTenant(t);
    expectError(await admin.get('/api/v1/roles?limit=101'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/roles?sort=user_count'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/roles?colour=red'), 400, 'VALIDATION_ERROR');
  });

  it('needs an API key (401) and role:read (403)', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).get('/api/v1/roles'), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Technician' });
    const res = await api.get('/api/v1/roles');
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['role:read']);
  });

  it('never shows another tenant’s roles', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const role = await createRole(a.admin);
    const res = await b.admin.get('/api/v1/roles?limit=100');
    expect(res.body).not.toContain(role.role_id);
  });
});

describe('POST /api/v1/roles', () => {
  it('creates a role with sorted permissions, a Location and a role.created event', async () => {
    const { admin, tenant } = await makeTenant(t);
    const res = await admin.post('/api/v1/roles', { role_name: '  Dispatcher ', description: 'Assigns tickets', permissions: ['ticket:update', 'client:read', 'ticket:read'] });
    expect(res.statusCode, res.body).toBe(201);
    const role = res.json().data as RoleJson;
    expect(role).toMatchObject({
      role_name: 'Dispatcher', description: 'Assigns tickets', is_builtin: false, is_client_portal: false,
      permissions: ['client:read', 'ticket:read', 'ticket:update'], user_count: 0,
    });
    expect(role.created_at).toMatch(/\.\d{3}Z$/);
    expect(res.headers.location).toBe(`/api/v1/roles/${role.role_id}`);
    expect(res.headers.etag).toBeDefined();
    const rows = await t.database.db.selectFrom('role_permissions').select('permission').where('tenant', '=', tenant).where('role_id', '=', role.role_id).orderBy('permission').execute();
    expect(rows.map((r) => r.permission)).toEqual(['client:read', 'ticket:read', 'ticket:update']);
    expect(await eventsOf(t, tenant, role.role_id)).toEqual([{ event_type: 'role.created', aggregate_type: 'role', aggregate_id: role.role_id, payload: { role_id: role.role_id } }]);
  });

  it('copies the permissions and portal flag of another role with copy_from_role_id', async () => {
    const { admin } = await makeTenant(t);
    const clientUser = await builtin(admin, 'Client User');
    const copy = await createRole(admin, { role_name: 'Client viewer', permissions: undefined, copy_from_role_id: clientUser.role_id });
    expect(copy).toMatchObject({ is_client_portal: true, is_builtin: false, permissions: clientUser.permissions });
    const empty = await createRole(admin, { role_name: 'Nothing yet', permissions: undefined });
    expect(empty.permissions).toEqual([]);
  });

  it('creates a client-portal role only from permissions portal users may hold (422 otherwise)', async () => {
    const { admin } = await makeTenant(t);
    const ok = await createRole(admin, { is_client_portal: true, permissions: ['ticket:read', 'ticket:create'] });
    expect(ok.is_client_portal).toBe(true);
    const res = await admin.post('/api/v1/roles', { role_name: 'Portal admin', is_client_portal: true, permissions: ['ticket:read', 'user:update', 'role:update'] });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details.permissions).toEqual(['role:update', 'user:update']);
  });

  it('rejects a name already taken in any letter case with 409, also against built-in roles', async () => {
    const { admin } = await makeTenant(t);
    await createRole(admin, { role_name: 'Night shift' });
    const dup = await admin.post('/api/v1/roles', { role_name: 'NIGHT SHIFT', permissions: [] });
    expectError(dup, 409, 'CONFLICT');
    expect(dup.json().error.message).toContain('NIGHT SHIFT');
    expectError(await admin.post('/api/v1/roles', { role_name: 'admin', permissions: [] }), 409, 'CONFLICT');
  });

  it('lets the same name exist in two tenants', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    await createRole(a.admin, { role_name: 'Shared name' });
    await createRole(b.admin, { role_name: 'Shared name' });
  });

  it('rejects an unknown permission with 400 naming it', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/roles', { role_name: 'Bad', permissions: ['ticket:read', 'ticket:fly', 'spaceship:read'] });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.message).toContain('ticket:fly, spaceship:read');
  });

  it('rejects bad bodies with 400: blank or long names, duplicates, too many permissions, both sources, unknown fields, an unknown source role', async () => {
    const { admin } = await makeTenant(t);
    const other = await makeTenant(t);
    const foreign = await builtin(other.admin, 'Viewer');
    for (const body of [
      { role_name: '   ', permissions: [] },
      { role_name: 'x'.repeat(101), permissions: [] },
      { role_name: 'd', description: 'x'.repeat(501) },
      { role_name: 'dup', permissions: ['ticket:read', 'ticket:read'] },
      { role_name: 'many', permissions: Array.from({ length: 201 }, (_, i) => `r${String.fromCharCode(97 + (i % 26))}${'x'.repeat(Math.floor(i / 26))}:read`) },
      { role_name: 'both', permissions: ['ticket:read'], copy_from_role_id: foreign.role_id },
      { role_name: 'extra', permissions: [], colour: 'red' },
      { permissions: [] },
      { role_name: 'unknown source', copy_from_role_id: randomId() },
      { role_name: 'foreign source', copy_from_role_id: foreign.role_id },
    ]) {
      expectError(await admin.post('/api/v1/roles', body), 400, 'VALIDATION_ERROR');
    }
  });

  it('refuses to grant permissions the caller does not hold (403 naming them)', async () => {
    const { tenant } = await makeTenant(t);
    const { api } = await makeUser(t, tenant, { role: 'Admin', scopes: ['role:create', 'role:read', 'ticket:read'] });
    const res = await api.post('/api/v1/roles', { role_name: 'Escalate', permissions: ['ticket:read', 'user:delete', 'role:delete'] });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['role:delete', 'user:delete']);
    expect((await api.post('/api/v1/roles', { role_name: 'Fine', permissions: ['ticket:read'] })).statusCode).toBe(201);
  });

  it('needs an API key (401) and role:create (403)', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/roles', { role_name: 'x', permissions: [] }), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Manager' });
    const res = await api.post('/api/v1/roles', { role_name: 'x', permissions: [] });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['role:create']);
  });
});

describe('GET /api/v1/roles/{id}', () => {
  it('returns the role with an ETag and answers 304 to If-None-Match', async () => {
    const { admin } = await makeTenant(t);
    const role = await createRole(admin, { permissions: ['asset:read'] });
    const res = await admin.get(`/api/v1/roles/${role.role_id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(role);
    const again = await admin.get(`/api/v1/roles/${role.role_id}`, { 'if-none-match': res.headers.etag as string });
    expect(again.statusCode).toBe(304);
  });

  it('counts the users holding a role', async () => {
    const { admin, tenant } = await makeTenant(t);
    await makeUser(t, tenant, { role: 'Technician' });
    await makeUser(t, tenant, { role: 'Technician' });
    expect((await builtin(admin, 'Technician')).user_count).toBe(2);
  });

  it('answers 404 for an unknown id and for another tenant’s role, 400 for a malformed id', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const role = await createRole(a.admin);
    expectError(await b.admin.get(`/api/v1/roles/${role.role_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/roles/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/roles/not-a-uuid'), 400, 'VALIDATION_ERROR');
  });

  it('needs an API key (401) and role:read (403)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin);
    expectError(await anonymous(t).get(`/api/v1/roles/${role.role_id}`), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    expectError(await api.get(`/api/v1/roles/${role.role_id}`), 403, 'FORBIDDEN');
  });
});

describe('PUT /api/v1/roles/{id}', () => {
  it('renames, redescribes and replaces the permission list, with a role.updated event naming what changed', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin, { role_name: 'Old', permissions: ['ticket:read', 'client:read'] });
    const res = await admin.put(`/api/v1/roles/${role.role_id}`, { role_name: 'New', description: 'Now with assets', permissions: ['asset:update', 'asset:read'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ role_name: 'New', description: 'Now with assets', permissions: ['asset:read', 'asset:update'] });
    expect(res.json().data.updated_at >= role.updated_at).toBe(true);
    const events = await eventsOf(t, tenant, role.role_id);
    expect(events.at(-1)).toMatchObject({ event_type: 'role.updated', payload: { changed_fields: ['role_name', 'description', 'permissions'] } });
  });

  it('changes what holders’ API keys may do at once', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin, { permissions: ['client:read'] });
    const { api, userId } = await makeUser(t, tenant);
    expect((await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [role.role_id] })).statusCode).toBe(200);
    expect((await api.get('/api/v1/clients')).statusCode).toBe(200);
    expect((await admin.put(`/api/v1/roles/${role.role_id}`, { permissions: ['contact:read'] })).statusCode).toBe(200);
    const denied = await api.get('/api/v1/clients');
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['client:read']);
    expect((await api.get('/api/v1/contacts')).statusCode).toBe(200);
  });

  it('changes nothing (and emits nothing) when the values are the same', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin, { role_name: 'Same', permissions: ['ticket:read', 'asset:read'] });
    const res = await admin.put(`/api/v1/roles/${role.role_id}`, { role_name: 'Same', permissions: ['asset:read', 'ticket:read'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(role);
    expect(await eventsOf(t, tenant, role.role_id)).toHaveLength(1);
  });

  it('refuses to change a built-in role (409)', async () => {
    const { admin } = await makeTenant(t);
    const viewer = await builtin(admin, 'Viewer');
    const res = await admin.put(`/api/v1/roles/${viewer.role_id}`, { description: 'mine now' });
    expectError(res, 409, 'CONFLICT');
    expect((await builtin(admin, 'Viewer')).description).toBe(viewer.description);
  });

  it('rejects a name another role has (409), an unknown permission (400), portal-unsafe permissions (422)', async () => {
    const { admin } = await makeTenant(t);
    const first = await createRole(admin, { role_name: 'First' });
    const second = await createRole(admin, { role_name: 'Second' });
    expectError(await admin.put(`/api/v1/roles/${second.role_id}`, { role_name: 'first' }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/roles/${second.role_id}`, { permissions: ['nope:read'] }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/roles/${second.role_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/roles/${second.role_id}`, { is_client_portal: true }), 400, 'VALIDATION_ERROR');
    const portal = await createRole(admin, { is_client_portal: true, permissions: ['ticket:read'] });
    expectError(await admin.put(`/api/v1/roles/${portal.role_id}`, { permissions: ['ticket:read', 'settings:update'] }), 422, 'UNPROCESSABLE');
    expect(first.role_name).toBe('First');
  });

  it('honours If-Match (412 on a stale ETag)', async () => {
    const { admin } = await makeTenant(t);
    const role = await createRole(admin);
    const etag = (await admin.get(`/api/v1/roles/${role.role_id}`)).headers.etag as string;
    expect((await admin.put(`/api/v1/roles/${role.role_id}`, { description: 'one' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/roles/${role.role_id}`, { description: 'two' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
  });

  it('refuses to add permissions the caller does not hold (403), but removing is fine', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin, { permissions: ['ticket:read', 'user:delete'] });
    const { api } = await makeUser(t, tenant, { role: 'Admin', scopes: ['role:update', 'ticket:read', 'asset:read'] });
    const res = await api.put(`/api/v1/roles/${role.role_id}`, { permissions: ['ticket:read', 'user:delete', 'client:delete'] });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['client:delete']);
    const narrowed = await api.put(`/api/v1/roles/${role.role_id}`, { permissions: ['ticket:read', 'asset:read'] });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
  });

  it('answers 404 for unknown and foreign roles, 401 without a key, 403 without role:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const role = await createRole(a.admin);
    expectError(await b.admin.put(`/api/v1/roles/${role.role_id}`, { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.put(`/api/v1/roles/${randomId()}`, { description: 'x' }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put(`/api/v1/roles/${role.role_id}`, { description: 'x' }), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Manager' });
    expectError(await api.put(`/api/v1/roles/${role.role_id}`, { description: 'x' }), 403, 'FORBIDDEN');
  });
});

describe('DELETE /api/v1/roles/{id}', () => {
  it('deletes an unused role with its permissions and emits role.deleted', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin, { role_name: 'Temporary' });
    const res = await admin.delete(`/api/v1/roles/${role.role_id}`);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expectError(await admin.get(`/api/v1/roles/${role.role_id}`), 404, 'NOT_FOUND');
    const perms = await t.database.db.selectFrom('role_permissions').select('permission').where('tenant', '=', tenant).where('role_id', '=', role.role_id).execute();
    expect(perms).toEqual([]);
    expect((await eventsOf(t, tenant, role.role_id)).at(-1)).toMatchObject({ event_type: 'role.deleted', payload: { role_id: role.role_id, role_name: 'Temporary' } });
  });

  it('refuses while users hold the role (409 with details.user_count)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const role = await createRole(admin);
    const { userId } = await makeUser(t, tenant);
    const other = await makeUser(t, tenant);
    await admin.post(`/api/v1/users/${userId}/roles`, { role_ids: [role.role_id] });
    await admin.post(`/api/v1/users/${other.userId}/roles`, { role_ids: [role.role_id] });
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', other.userId).execute();
    const res = await admin.delete(`/api/v1/roles/${role.role_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details.user_count).toBe(2);
    expect((await admin.get(`/api/v1/roles/${role.role_id}`)).statusCode).toBe(200);
  });

  it('refuses to delete a built-in role (409)', async () => {
    const { admin } = await makeTenant(t);
    const finance = await builtin(admin, 'Finance');
    expectError(await admin.delete(`/api/v1/roles/${finance.role_id}`), 409, 'CONFLICT');
  });

  it('honours If-Match (412)', async () => {
    const { admin } = await makeTenant(t);
    const role = await createRole(admin);
    expectError(await admin.delete(`/api/v1/roles/${role.role_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const etag = (await admin.get(`/api/v1/roles/${role.role_id}`)).headers.etag as string;
    expect((await admin.delete(`/api/v1/roles/${role.role_id}`, { 'if-match': etag })).statusCode).toBe(204);
  });

  it('answers 404 for unknown and foreign roles, 400 for malformed ids, 401 without a key, 403 without role:delete', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const role = await createRole(a.admin);
    expectError(await b.admin.delete(`/api/v1/roles/${role.role_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/roles/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete('/api/v1/roles/42'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(`/api/v1/roles/${role.role_id}`), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await api.delete(`/api/v1/roles/${role.role_id}`), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/roles/${role.role_id}`)).statusCode).toBe(200);
  });
});

describe('GET /api/v1/permissions', () => {
  it('returns the catalogue grouped by resource, with what client-portal roles may hold', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.get('/api/v1/permissions');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { resource: string; actions: string[]; permissions: string[]; client_portal_allowed: string[] }[];
    expect(data.map((g) => g.resource)).toEqual(permissionResources().map((r) => r.resource));
    expect(data.flatMap((g) => g.permissions)).toEqual(allPermissions());
    expect(data.find((g) => g.resource === 'settings')).toEqual({ resource: 'settings', actions: ['read', 'update'], permissions: ['settings:read', 'settings:update'], client_portal_allowed: [] });
    expect(data.find((g) => g.resource === 'ticket')!.client_portal_allowed).toEqual(['ticket:create', 'ticket:read', 'ticket:update']);
  });

  it('rejects query parameters (400), needs a key (401) and role:read (403)', async () => {
    const { admin, tenant } = await makeTenant(t);
    expectError(await admin.get('/api/v1/permissions?resource=ticket'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/permissions'), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await api.get('/api/v1/permissions'), 403, 'FORBIDDEN');
  });
});
