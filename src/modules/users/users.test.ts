import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import {
  STRONG_PASSWORD,
  USER_FIELDS,
  activityOf,
  createUser,
  grantRole,
  makeClientRecord,
  makeRole,
  newUserBody,
  openSession,
  randomId,
  sessionRevoked,
  userEvents,
} from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

describe('POST /api/v1/users', () => {
  it('creates a user without roles, stores only an argon2id hash, records the activity and emits user.created', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const body = newUserBody({ first_name: '  Ada ', last_name: 'Lovelace', phone: '+44 20 7946 0000', timezone: 'Europe/London' });
    const res = await admin.post('/api/v1/users', body, { 'user-agent': 'users-suite/1' });
    expect(res.statusCode, res.body).toBe(201);
    const user = res.json().data;
    expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
    expect(user).toMatchObject({
      username: body.username,
      email: body.email,
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+44 20 7946 0000',
      timezone: 'Europe/London',
      user_type: 'internal',
      client_id: null,
      contact_id: null,
      is_inactive: false,
      two_factor_enabled: false,
      image: null,
      last_login_at: null,
      roles: [],
    });
    expect(res.headers.location).toBe(`/api/v1/users/${user.user_id}`);
    expect(res.headers.etag).toBeDefined();
    expect(res.body).not.toContain(STRONG_PASSWORD);
    const row = await t.database.db.selectFrom('users').selectAll().where('tenant', '=', tenant).where('user_id', '=', user.user_id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_changed_at).not.toBeNull();
    const roles = await t.database.db.selectFrom('user_roles').selectAll().where('tenant', '=', tenant).where('user_id', '=', user.user_id).execute();
    expect(roles).toEqual([]);
    expect(await activityOf(t, tenant, user.user_id)).toEqual([
      { activity_type: 'user_created', user_id: user.user_id, actor_user_id: adminUserId, details: { username: body.username, user_type: 'internal' }, ip: '127.0.0.1', user_agent: 'users-suite/1' },
    ]);
    expect(await userEvents(t, tenant, user.user_id)).toEqual([
      { event_type: 'user.created', payload: { user_id: user.user_id, user_type: 'internal', client_id: null } },
    ]);
  });

  it('stores the canonical time zone name and refuses names Intl does not know', async () => {
    const { admin } = await makeTenant(t);
    const aliased = await admin.post('/api/v1/users', newUserBody({ timezone: 'US/Eastern' }));
    expect(aliased.statusCode, aliased.body).toBe(201);
    expect(aliased.json().data.timezone).toBe('America/New_York');
    for (const timezone of ['Mars/Olympus_Mons', '+01:00', 'Europe/../etc']) {
      const res = await admin.post('/api/v1/users', newUserBody({ timezone }));
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details[0].path).toBe('body.timezone');
    }
  });

  it('creates a client user only with an existing client of the tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const client = await makeClientRecord(a.admin);
    const foreign = await makeClientRecord(b.admin);
    const ok = await a.admin.post('/api/v1/users', newUserBody({ user_type: 'client', client_id: client }));
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data).toMatchObject({ user_type: 'client', client_id: client });
    for (const [extra, path] of [
      [{ user_type: 'client' }, 'body.client_id'],
      [{ user_type: 'client', client_id: randomId() }, 'body.client_id'],
      [{ user_type: 'client', client_id: foreign }, 'body.client_id'],
      [{ user_type: 'internal', client_id: client }, 'body.client_id'],
    ] as const) {
      const res = await a.admin.post('/api/v1/users', newUserBody(extra));
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details[0].path, JSON.stringify(extra)).toBe(path);
    }
  });

  it('refuses a username or e-mail already taken in the tenant, regardless of case, but not in another tenant', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const first = await createUser(a.admin, { username: 'Grace.Hopper', email: 'grace@navy.test' });
    const sameName = await a.admin.post('/api/v1/users', newUserBody({ username: 'grace.HOPPER' }));
    expectError(sameName, 409, 'CONFLICT');
    expect(sameName.json().error.details).toMatchObject({ field: 'username', user_id: first.user_id });
    const sameEmail = await a.admin.post('/api/v1/users', newUserBody({ email: 'GRACE@navy.test' }));
    expectError(sameEmail, 409, 'CONFLICT');
    expect(sameEmail.json().error.details).toMatchObject({ field: 'email' });
    const elsewhere = await b.admin.post('/api/v1/users', newUserBody({ username: 'grace.hopper', email: 'grace@navy.test' }));
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);
    expect(elsewhere.json().data.email).toBe('grace@navy.test');
  });

  it('enforces the password policy and names the broken rule', async () => {
    const { admin } = await makeTenant(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ password: 'Short-1' }, 'min_length'],
      [{ password: 'x'.repeat(129) }, 'max_length'],
      [{ username: 'marie.curie', password: 'Radium-marie.curie-1898' }, 'contains_username'],
      [{ email: 'pierre@lab.test', password: 'Polonium-PIERRE-1898' }, 'contains_email'],
      [{ password: 'Password1234' }, 'common_password'],
      [{ password: 'zzzzzzzzzzzzzzzz' }, 'repeated_character'],
      [{ password: 'abcdefghijklmn' }, 'sequence'],
    ];
    for (const [extra, rule] of cases) {
      const res = await admin.post('/api/v1/users', newUserBody(extra));
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.details[0], JSON.stringify(extra)).toMatchObject({ path: 'body.password', rule });
      expect(res.json().error.message).toContain(rule);
    }
  });

  it('validates the body', async () => {
    const { admin } = await makeTenant(t);
    const bodies = [
      {},
      { username: 'ab', email: 'a@b.test', password: STRONG_PASSWORD },
      { username: 'x'.repeat(51), email: 'a@b.test', password: STRONG_PASSWORD },
      { username: 'has space', email: 'a@b.test', password: STRONG_PASSWORD },
      { username: 'valid.name', email: 'not-an-email', password: STRONG_PASSWORD },
      { username: 'valid.name', email: 'a@b.test' },
      newUserBody({ user_type: 'robot' }),
      newUserBody({ roles: ['Admin'] }),
      newUserBody({ first_name: 'x'.repeat(101) }),
      newUserBody({ client_id: 'nope' }),
    ];
    for (const body of bodies) {
      const res = await admin.post('/api/v1/users', body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
    }
  });

  it('needs a key (401) and user:create (403)', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/users', newUserBody()), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const res = await tech.api.post('/api/v1/users', newUserBody());
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['user:create']);
  });

  it('a client-portal key creates only client users of its own client', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClientRecord(admin);
    const other = await makeClientRecord(admin);
    const role = await makeRole(t, tenant, ['user:create', 'user:read'], { clientPortal: true });
    const portal = await makeUser(t, tenant, { role, userType: 'client', clientId: own });
    const defaulted = await portal.api.post('/api/v1/users', newUserBody());
    expect(defaulted.statusCode, defaulted.body).toBe(201);
    expect(defaulted.json().data).toMatchObject({ user_type: 'client', client_id: own });
    expectError(await portal.api.post('/api/v1/users', newUserBody({ user_type: 'client', client_id: other })), 403, 'FORBIDDEN');
    expectError(await portal.api.post('/api/v1/users', newUserBody({ user_type: 'internal' })), 403, 'FORBIDDEN');
  });
});

describe('GET /api/v1/users/{id}', () => {
  it('returns the user with their roles and an ETag, and 304 for a matching If-None-Match', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const res = await admin.get(`/api/v1/users/${adminUserId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ user_id: adminUserId, roles: [{ role_name: 'Admin' }] });
    expect(res.json().data.roles[0].role_id).toBe((await t.database.db.selectFrom('roles').select('role_id').where('tenant', '=', tenant).where('role_name', '=', 'Admin').executeTakeFirstOrThrow()).role_id);
    const cached = await admin.get(`/api/v1/users/${adminUserId}`, { 'if-none-match': String(res.headers.etag) });
    expect(cached.statusCode).toBe(304);
  });

  it('anyone may read themself; reading someone else needs user:read', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const nobody = await makeUser(t, tenant, {});
    const self = await nobody.api.get(`/api/v1/users/${nobody.userId}`);
    expect(self.statusCode, self.body).toBe(200);
    expect(self.json().data.roles).toEqual([]);
    const other = await nobody.api.get(`/api/v1/users/${adminUserId}`);
    expectError(other, 403, 'FORBIDDEN');
    expect(other.json().error.details.required).toEqual(['user:read']);
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(`/api/v1/users/${adminUserId}`)).statusCode).toBe(200);
  });

  it('a client-portal key sees its own client’s users and itself, nobody else', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const own = await makeClientRecord(admin);
    const other = await makeClientRecord(admin);
    const colleague = await createUser(admin, { user_type: 'client', client_id: own });
    const stranger = await createUser(admin, { user_type: 'client', client_id: other });
    const role = await makeRole(t, tenant, ['user:read'], { clientPortal: true });
    const portal = await makeUser(t, tenant, { role, userType: 'client', clientId: own });
    expect((await portal.api.get(`/api/v1/users/${colleague.user_id}`)).statusCode).toBe(200);
    expect((await portal.api.get(`/api/v1/users/${portal.userId}`)).statusCode).toBe(200);
    expectError(await portal.api.get(`/api/v1/users/${stranger.user_id}`), 404, 'NOT_FOUND');
    expectError(await portal.api.get(`/api/v1/users/${adminUserId}`), 404, 'NOT_FOUND');
  });

  it('answers 404 for an unknown id or another tenant’s user, 400 for a malformed id, 401 without a key', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    expectError(await a.admin.get(`/api/v1/users/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/users/${b.adminUserId}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/users/42'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/users/${a.adminUserId}`), 401, 'UNAUTHORIZED');
  });
});

describe('PUT /api/v1/users/{id}', () => {
  it('updates profile fields, records profile_update and emits user.updated with the changed fields', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const user = await createUser(admin, { first_name: 'Old' });
    const res = await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'New', last_name: 'Name', phone: '', timezone: 'Asia/Tokyo', email: 'Renamed@Example.test' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ first_name: 'New', last_name: 'Name', phone: null, timezone: 'Asia/Tokyo', email: 'renamed@example.test' });
    expect(res.json().data.updated_at > user.updated_at).toBe(true);
    const activity = await activityOf(t, tenant, user.user_id);
    expect(activity.at(-1)).toMatchObject({ activity_type: 'profile_update', actor_user_id: adminUserId, details: { changed_fields: ['first_name', 'last_name', 'timezone', 'email'] } });
    expect((await userEvents(t, tenant, user.user_id)).at(-1)).toEqual({
      event_type: 'user.updated',
      payload: { user_id: user.user_id, changed_fields: ['first_name', 'last_name', 'timezone', 'email'] },
    });
  });

  it('changes nothing (no event, same updated_at) when nothing differs', async () => {
    const { tenant, admin } = await makeTenant(t);
    const user = await createUser(admin, { first_name: 'Same' });
    const res = await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'Same' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.updated_at).toBe(user.updated_at);
    expect((await userEvents(t, tenant, user.user_id)).map((e) => e.event_type)).toEqual(['user.created']);
  });

  it('lets a user edit their own name, phone and time zone without any permission, but nothing else', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const ok = await me.api.put(`/api/v1/users/${me.userId}`, { first_name: 'Me', timezone: 'Europe/Berlin' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ first_name: 'Me', timezone: 'Europe/Berlin' });
    const activity = await activityOf(t, tenant, me.userId);
    expect(activity.at(-1)).toMatchObject({ activity_type: 'profile_update', actor_user_id: null });
    for (const body of [{ user_type: 'admin' }, { is_inactive: true }, { email: 'x@y.test' }, { first_name: 'Me', client_id: null }]) {
      const res = await me.api.put(`/api/v1/users/${me.userId}`, body);
      expectError(res, 403, 'FORBIDDEN');
      expect(res.json().error.details.required).toEqual(['user:update']);
    }
    expectError(await me.api.put(`/api/v1/users/${adminUserId}`, { first_name: 'Hacked' }), 403, 'FORBIDDEN');
  });

  it('deactivation ends the user’s sessions and API keys at once; reactivation restores the keys', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(200); // key now cached
    const session = await openSession(t, tenant, tech.userId);
    const off = await admin.put(`/api/v1/users/${tech.userId}`, { is_inactive: true });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data.is_inactive).toBe(true);
    expect(await sessionRevoked(t, tenant, session)).toBe(true);
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(401);
    const on = await admin.put(`/api/v1/users/${tech.userId}`, { is_inactive: false });
    expect(on.statusCode, on.body).toBe(200);
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(200);
    const types = (await activityOf(t, tenant, tech.userId)).map((a) => [a.activity_type, a.actor_user_id, a.details]);
    expect(types).toEqual([
      ['user_deactivated', adminUserId, { sessions_revoked: 1 }],
      ['user_activated', adminUserId, {}],
    ]);
    expect((await userEvents(t, tenant, tech.userId)).map((e) => e.payload.changed_fields)).toEqual([['is_inactive'], ['is_inactive']]);
  });

  it('refuses to deactivate yourself or the last active Admin (409)', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    expectError(await admin.put(`/api/v1/users/${adminUserId}`, { is_inactive: true }), 409, 'CONFLICT');
    const manager = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:read', 'user:update']) });
    const last = await manager.api.put(`/api/v1/users/${adminUserId}`, { is_inactive: true });
    expectError(last, 409, 'CONFLICT');
    expect(last.json().error.details.reason).toBe('last_admin');
    const second = await makeUser(t, tenant, { role: 'Admin' });
    expect((await manager.api.put(`/api/v1/users/${adminUserId}`, { is_inactive: true })).statusCode).toBe(200);
    expectError(await manager.api.put(`/api/v1/users/${second.userId}`, { is_inactive: true }), 409, 'CONFLICT');
  });

  it('moves a user between types: client needs a client; leaving client clears it; the key follows at once', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClientRecord(admin);
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    const internal = await createUser(admin);
    expect((await viewer.api.get(`/api/v1/users/${internal.user_id}`)).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/users/${viewer.userId}`, { user_type: 'client' }), 400, 'VALIDATION_ERROR');
    const toClient = await admin.put(`/api/v1/users/${viewer.userId}`, { user_type: 'client', client_id: client });
    expect(toClient.statusCode, toClient.body).toBe(200);
    expect(toClient.json().data).toMatchObject({ user_type: 'client', client_id: client });
    // Now confined to the client: internal users are invisible to the (portal) key.
    expect((await viewer.api.get(`/api/v1/users/${internal.user_id}`)).statusCode).toBe(404);
    const back = await admin.put(`/api/v1/users/${viewer.userId}`, { user_type: 'contractor' });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data).toMatchObject({ user_type: 'contractor', client_id: null });
    expect((await viewer.api.get(`/api/v1/users/${internal.user_id}`)).statusCode).toBe(200);
  });

  it('answers 409 for a username or e-mail another user has', async () => {
    const { admin } = await makeTenant(t);
    const a = await createUser(admin);
    const b = await createUser(admin);
    expectError(await admin.put(`/api/v1/users/${b.user_id}`, { username: a.username.toUpperCase() }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/users/${b.user_id}`, { email: a.email }), 409, 'CONFLICT');
    expect((await admin.put(`/api/v1/users/${b.user_id}`, { username: b.username.toUpperCase() })).statusCode).toBe(200);
  });

  it('honours If-Match (412 on a stale ETag)', async () => {
    const { admin } = await makeTenant(t);
    const user = await createUser(admin);
    const etag = String((await admin.get(`/api/v1/users/${user.user_id}`)).headers.etag);
    expectError(await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'A' }, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expect((await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'A' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'B' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
  });

  it('validates the body and answers 401, 403 and 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const user = await createUser(a.admin);
    for (const body of [{}, { nickname: 'x' }, { timezone: 'Nowhere/Town' }, { is_inactive: 'yes' }, { username: 'a b' }]) {
      expect((await a.admin.put(`/api/v1/users/${user.user_id}`, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expectError(await anonymous(t).put(`/api/v1/users/${user.user_id}`, { first_name: 'x' }), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await viewer.api.put(`/api/v1/users/${user.user_id}`, { first_name: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.admin.put(`/api/v1/users/${randomId()}`, { first_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await b.admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/users/{id}', () => {
  it('removes the user with their keys and sessions, clears teams they managed, and keeps the activity trail', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const doomed = await makeUser(t, tenant, { role: 'Technician' });
    await openSession(t, tenant, doomed.userId);
    const teamId = randomId();
    await t.database.db.insertInto('teams').values({ tenant, team_id: teamId, team_name: 'Night shift', description: null, manager_id: doomed.userId }).execute();
    expect((await doomed.api.get(`/api/v1/users/${doomed.userId}`)).statusCode).toBe(200);
    const res = await admin.delete(`/api/v1/users/${doomed.userId}`, { 'user-agent': 'cleanup/2' });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expectError(await admin.get(`/api/v1/users/${doomed.userId}`), 404, 'NOT_FOUND');
    expect((await doomed.api.get(`/api/v1/users/${doomed.userId}`)).statusCode).toBe(401);
    const db = t.database.db;
    expect(await db.selectFrom('api_keys').select('api_key_id').where('tenant', '=', tenant).where('user_id', '=', doomed.userId).execute()).toEqual([]);
    expect(await db.selectFrom('sessions').select('session_id').where('tenant', '=', tenant).where('user_id', '=', doomed.userId).execute()).toEqual([]);
    expect((await db.selectFrom('teams').select('manager_id').where('tenant', '=', tenant).where('team_id', '=', teamId).executeTakeFirstOrThrow()).manager_id).toBeNull();
    expect((await activityOf(t, tenant, doomed.userId)).at(-1)).toMatchObject({ activity_type: 'user_deleted', actor_user_id: adminUserId, user_agent: 'cleanup/2' });
    expect((await userEvents(t, tenant, doomed.userId)).at(-1)).toEqual({ event_type: 'user.deleted', payload: { user_id: doomed.userId } });
    expectError(await admin.delete(`/api/v1/users/${doomed.userId}`), 404, 'NOT_FOUND');
  });

  it('refuses to delete yourself or the last active Admin (409)', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    expectError(await admin.delete(`/api/v1/users/${adminUserId}`), 409, 'CONFLICT');
    const remover = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:delete']) });
    const last = await remover.api.delete(`/api/v1/users/${adminUserId}`);
    expectError(last, 409, 'CONFLICT');
    expect(last.json().error.message).toContain('Admin');
    const inactiveAdmin = await createUser(admin);
    await grantRole(t, tenant, inactiveAdmin.user_id, 'Admin');
    expect((await admin.put(`/api/v1/users/${inactiveAdmin.user_id}`, { is_inactive: true })).statusCode).toBe(200);
    expect((await remover.api.delete(`/api/v1/users/${inactiveAdmin.user_id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/v1/users/${adminUserId}`)).statusCode).toBe(200);
  });

  it('honours If-Match, needs user:delete, and answers 401, 404 and 400', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const user = await createUser(a.admin);
    expectError(await a.admin.delete(`/api/v1/users/${user.user_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    const denied = await viewer.api.delete(`/api/v1/users/${user.user_id}`);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:delete']);
    expectError(await anonymous(t).delete(`/api/v1/users/${user.user_id}`), 401, 'UNAUTHORIZED');
    expectError(await b.admin.delete(`/api/v1/users/${user.user_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/users/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete('/api/v1/users/nope'), 400, 'VALIDATION_ERROR');
    const etag = String((await a.admin.get(`/api/v1/users/${user.user_id}`)).headers.etag);
    expect((await a.admin.delete(`/api/v1/users/${user.user_id}`, { 'if-match': etag })).statusCode).toBe(204);
  });
});
