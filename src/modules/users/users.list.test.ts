import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Api, type Res } from '../../../test/factories.ts';
import { createUser, grantRole, makeClientRecord, makeRole, randomId, roleId, type UserJson } from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

const usernames = async (api: Api, url: string): Promise<string[]> => {
  const res = await api.get(url);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as UserJson[]).map((u) => u.username);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET /api/v1/users', () => {
  it('lists users by username with their roles and the pagination envelope', async () => {
    const { tenant, admin } = await makeTenant(t);
    await createUser(admin, { username: 'charlie', email: 'c@x.test' });
    const bravo = await createUser(admin, { username: 'Bravo', email: 'b@x.test' });
    await grantRole(t, tenant, bravo.user_id, 'Technician');
    const res = await admin.get('/api/v1/users?limit=2');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true, hasPrev: false });
    expect(res.json().data.map((u: UserJson) => u.username)).toEqual([expect.stringMatching(/^admin@/), 'Bravo']);
    expect(res.json().data[1].roles).toEqual([{ role_id: await roleId(t, tenant, 'Technician'), role_name: 'Technician' }]);
    expect(await usernames(admin, '/api/v1/users?limit=2&page=2')).toEqual(['charlie']);
    expect(await usernames(admin, '/api/v1/users?sort=username&order=desc&limit=1')).toEqual(['charlie']);
  });

  it('filters by type, state, role, team, client, text and updated_since', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClientRecord(admin);
    const ada = await createUser(admin, { username: 'ada', email: 'ada@calc.test', first_name: 'Ada', last_name: 'Lovelace' });
    const bob = await createUser(admin, { username: 'bob', email: 'bob@x.test', user_type: 'contractor' });
    const cat = await createUser(admin, { username: 'cat', email: 'cat@x.test', user_type: 'client', client_id: client });
    await grantRole(t, tenant, ada.user_id, 'Finance');
    await admin.put(`/api/v1/users/${bob.user_id}`, { is_inactive: true });
    const teamId = randomId();
    await t.database.db.insertInto('teams').values({ tenant, team_id: teamId, team_name: 'Blue', description: null, manager_id: null }).execute();
    await t.database.db.insertInto('team_members').values({ tenant, team_id: teamId, user_id: cat.user_id }).execute();

    expect(await usernames(admin, '/api/v1/users?user_type=contractor')).toEqual(['bob']);
    expect(await usernames(admin, '/api/v1/users?is_inactive=true')).toEqual(['bob']);
    expect(await usernames(admin, `/api/v1/users?role_id=${await roleId(t, tenant, 'Finance')}`)).toEqual(['ada']);
    expect(await usernames(admin, `/api/v1/users?team_id=${teamId}`)).toEqual(['cat']);
    expect(await usernames(admin, `/api/v1/users?client_id=${client}`)).toEqual(['cat']);
    expect(await usernames(admin, '/api/v1/users?search=LOVELACE')).toEqual(['ada']);
    expect(await usernames(admin, `/api/v1/users?search=${encodeURIComponent('ada love')}`)).toEqual(['ada']);
    expect(await usernames(admin, '/api/v1/users?search=calc.test')).toEqual(['ada']);
    expect(await usernames(admin, '/api/v1/users?search=%25')).toEqual([]);
    await sleep(5);
    const since = new Date().toISOString();
    await sleep(5);
    await admin.put(`/api/v1/users/${ada.user_id}`, { first_name: 'Augusta' });
    expect(await usernames(admin, `/api/v1/users?updated_since=${since}`)).toEqual(['ada']);
  });

  it('a client-portal key lists only its own client’s users and itself', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClientRecord(admin);
    const other = await makeClientRecord(admin);
    await createUser(admin, { username: 'mine', email: 'mine@x.test', user_type: 'client', client_id: own });
    await createUser(admin, { username: 'theirs', email: 'theirs@x.test', user_type: 'client', client_id: other });
    await createUser(admin, { username: 'staff', email: 'staff@x.test' });
    const portal = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:read'], { clientPortal: true }), userType: 'client', clientId: own });
    const names = await usernames(portal.api, '/api/v1/users?limit=100');
    expect(names).toHaveLength(2);
    expect(names).toContain('mine');
    expect(names.some((n) => n.endsWith('@example.test'))).toBe(true);
  });

  it('rejects bad query parameters and needs user:read', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const q of ['?limit=0', '?limit=101', '?page=0', '?sort=password_hash', '?user_type=robot', '?role_id=x', '?nope=1', `?search=${'x'.repeat(101)}`]) {
      expect((await admin.get(`/api/v1/users${q}`)).statusCode, q).toBe(400);
    }
    expectError(await anonymous(t).get('/api/v1/users'), 401, 'UNAUTHORIZED');
    const nobody = await makeUser(t, tenant, {});
    const res = await nobody.api.get('/api/v1/users');
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['user:read']);
  });
});

describe('GET /api/v1/users/search', () => {
  it('finds users by username, name or e-mail, best match first, active only unless asked', async () => {
    const { admin } = await makeTenant(t);
    await createUser(admin, { username: 'sam.jones', email: 'sj@x.test' });
    await createUser(admin, { username: 'sam', email: 'sam@x.test' });
    await createUser(admin, { username: 'ben', email: 'ben@x.test', first_name: 'Samuel' });
    const gone = await createUser(admin, { username: 'samantha', email: 'samantha@x.test', user_type: 'contractor' });
    await admin.put(`/api/v1/users/${gone.user_id}`, { is_inactive: true });
    const res = await admin.get('/api/v1/users/search?query=SAM');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((u: UserJson) => u.username)).toEqual(['sam', 'sam.jones', 'ben']);
    expect(res.json().pagination).toBeUndefined();
    const all = await admin.get('/api/v1/users/search?query=sam&include_inactive=true');
    expect(all.json().data.map((u: UserJson) => u.username)).toEqual(['sam', 'sam.jones', 'samantha', 'ben']);
    const limited = await admin.get('/api/v1/users/search?query=sam&include_inactive=true&limit=2');
    expect(limited.json().data.map((u: UserJson) => u.username)).toEqual(['sam', 'sam.jones']);
    const typed = await admin.get('/api/v1/users/search?query=sam&include_inactive=true&user_type=contractor');
    expect(typed.json().data.map((u: UserJson) => u.username)).toEqual(['samantha']);
    const none = await admin.get('/api/v1/users/search?query=zzz');
    expect(none.json().data).toEqual([]);
  });

  it('validates query, limit and type, and needs user:read', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (const q of ['', '?query=', `?query=${'a'.repeat(101)}`, '?query=a&limit=0', '?query=a&limit=101', '?query=a&user_type=x', '?query=a&page=2']) {
      expect((await admin.get(`/api/v1/users/search${q}`)).statusCode, q).toBe(400);
    }
    expectError(await anonymous(t).get('/api/v1/users/search?query=a'), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, tenant, {})).api.get('/api/v1/users/search?query=a'), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/users/stats', () => {
  it('counts users for real: state, type, role, 2FA, avatars and sign-ins', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const client = await makeClientRecord(admin);
    const a = await createUser(admin, { user_type: 'contractor' });
    const b = await createUser(admin, { user_type: 'client', client_id: client });
    const c = await createUser(admin);
    await grantRole(t, tenant, a.user_id, 'Technician');
    await grantRole(t, tenant, b.user_id, 'Client User');
    await grantRole(t, tenant, c.user_id, 'Technician');
    await admin.put(`/api/v1/users/${c.user_id}`, { is_inactive: true });
    const db = t.database.db;
    await db.updateTable('users').set({ two_factor_enabled: true }).where('tenant', '=', tenant).where('user_id', '=', a.user_id).execute();
    await db.updateTable('users').set({ last_login_at: new Date() }).where('tenant', '=', tenant).where('user_id', '=', adminUserId).execute();
    await db.updateTable('users').set({ last_login_at: new Date(Date.now() - 40 * 86_400_000) }).where('tenant', '=', tenant).where('user_id', '=', a.user_id).execute();
    await db.insertInto('user_avatars').values({ tenant, user_id: b.user_id, image: Buffer.from('x'), content_type: 'image/webp', etag: 'e' }).execute();

    const res = await admin.get('/api/v1/users/stats');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      total_users: 4,
      active_users: 3,
      inactive_users: 1,
      users_by_type: { internal: 2, client: 1, admin: 0, contractor: 1 },
      users_by_role: { Admin: 1, Technician: 2, 'Client User': 1 },
      users_with_2fa: 1,
      users_with_avatar: 1,
      recent_logins: 1,
      never_logged_in: 2,
    });
  });

  it('a client-portal key counts only the users it can see', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClientRecord(admin);
    await createUser(admin, { user_type: 'client', client_id: own });
    await createUser(admin);
    const portal = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:read'], { clientPortal: true }), userType: 'client', clientId: own });
    const res = await portal.api.get('/api/v1/users/stats');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ total_users: 2, users_by_type: { internal: 0, client: 2, admin: 0, contractor: 0 } });
  });

  it('needs user:read and takes no query parameters', async () => {
    const { tenant, admin } = await makeTenant(t);
    expectError(await admin.get('/api/v1/users/stats?x=1'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/users/stats'), 401, 'UNAUTHORIZED');
    expectError(await (await makeUser(t, tenant, {})).api.get('/api/v1/users/stats'), 403, 'FORBIDDEN');
  });
});
