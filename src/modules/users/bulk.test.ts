import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import { activityOf, createUser, makeRole, newUserBody, openSession, randomId, sessionRevoked, userEvents } from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

const countUsers = async (tenant: string) =>
  Number((await t.database.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow()).n);

describe('POST /api/v1/users/bulk/create', () => {
  it('creates each valid item and reports each invalid one, with 200 and a summary', async () => {
    const { tenant, admin } = await makeTenant(t);
    const taken = await createUser(admin);
    const users = [
      newUserBody({ username: 'bulk.one', email: 'one@bulk.test' }),
      newUserBody({ password: 'too-short' }),
      newUserBody({ username: taken.username }),
      newUserBody({ username: 'bulk.two', email: 'two@bulk.test', timezone: 'Atlantis/Capital' }),
      newUserBody({ username: 'bulk.three', email: 'three@bulk.test' }),
      newUserBody({ username: 'BULK.ONE' }),
    ];
    const res = await admin.post('/api/v1/users/bulk/create', { users });
    expect(res.statusCode, res.body).toBe(200);
    const { results, summary, dry_run } = res.json().data;
    expect(dry_run).toBe(false);
    expect(summary).toEqual({ succeeded: 2, failed: 4, skipped: 0 });
    expect(results.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual([
      [0, 'created'], [1, 'error'], [2, 'error'], [3, 'error'], [4, 'created'], [5, 'error'],
    ]);
    expect(results[1].error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('body.users[1].password') });
    expect(results[2].error.code).toBe('CONFLICT');
    expect(results[3].error.message).toContain('body.users[3].timezone');
    expect(results[5].error.code).toBe('CONFLICT');
    const created = await admin.get(`/api/v1/users/${results[4].user_id}`);
    expect(created.json().data).toMatchObject({ username: 'bulk.three', roles: [] });
    expect((await activityOf(t, tenant, results[0].user_id)).map((a) => a.activity_type)).toEqual(['user_created']);
    expect((await userEvents(t, tenant, results[0].user_id)).map((e) => e.event_type)).toEqual(['user.created']);
    expect(await countUsers(tenant)).toBe(4);
  });

  it('a dry run checks every item, duplicates within the batch included, and writes nothing', async () => {
    const { tenant, admin } = await makeTenant(t);
    const before = await countUsers(tenant);
    const res = await admin.post('/api/v1/users/bulk/create', {
      users: [newUserBody({ username: 'dry.one' }), newUserBody({ username: 'DRY.one' }), newUserBody({ password: 'password1234' })],
      options: { dry_run: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ dry_run: true, summary: { succeeded: 1, failed: 2, skipped: 0 } });
    expect(res.json().data.results[0]).toEqual({ index: 0, status: 'created' });
    expect(res.json().data.results[1].error.code).toBe('CONFLICT');
    expect(await countUsers(tenant)).toBe(before);
    const events = await t.database.db.selectFrom('events').select('event_id').where('tenant', '=', tenant).where('aggregate_type', '=', 'user').execute();
    expect(events).toEqual([]);
  });

  it('stop_on_error stops at the first failure and keeps what was created before it', async () => {
    const { tenant, admin } = await makeTenant(t);
    const before = await countUsers(tenant);
    const res = await admin.post('/api/v1/users/bulk/create', {
      users: [newUserBody(), newUserBody({ email: 'dup@x.test' }), newUserBody({ email: 'DUP@x.test' }), newUserBody()],
      options: { stop_on_error: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.summary).toEqual({ succeeded: 2, failed: 1, skipped: 1 });
    expect(res.json().data.results.map((r: { status: string }) => r.status)).toEqual(['created', 'created', 'error']);
    expect(await countUsers(tenant)).toBe(before + 2);
  });

  it('validates the envelope, needs user:create, and answers 401', async () => {
    const { tenant, admin } = await makeTenant(t);
    const many = Array.from({ length: 101 }, () => newUserBody());
    for (const body of [{}, { users: [] }, { users: many }, { users: [newUserBody({ extra: 1 })] }, { users: [newUserBody()], options: { force: true } }]) {
      expectError(await admin.post('/api/v1/users/bulk/create', body), 400, 'VALIDATION_ERROR');
    }
    expectError(await anonymous(t).post('/api/v1/users/bulk/create', { users: [newUserBody()] }), 401, 'UNAUTHORIZED');
    const denied = await (await makeUser(t, tenant, { role: 'Manager' })).api.post('/api/v1/users/bulk/create', { users: [newUserBody()] });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:create']);
  });
});

describe('PUT /api/v1/users/bulk/deactivate', () => {
  it('deactivates each user on its own: unknown, foreign and own ids fail alone; already inactive ones are unchanged', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const session = await openSession(t, a.tenant, tech.userId);
    const other = await createUser(a.admin);
    const idle = await createUser(a.admin);
    await a.admin.put(`/api/v1/users/${idle.user_id}`, { is_inactive: true });
    const unknown = randomId();
    const ids = [tech.userId, unknown, b.adminUserId, a.adminUserId, idle.user_id, other.user_id];
    const res = await a.admin.put('/api/v1/users/bulk/deactivate', { user_ids: ids });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.summary).toEqual({ succeeded: 3, failed: 3, skipped: 0 });
    expect(res.json().data.results.map((r: { user_id: string; status: string; error?: { code: string } }) => [r.user_id, r.status, r.error?.code])).toEqual([
      [tech.userId, 'deactivated', undefined],
      [unknown, 'error', 'NOT_FOUND'],
      [b.adminUserId, 'error', 'NOT_FOUND'],
      [a.adminUserId, 'error', 'CONFLICT'],
      [idle.user_id, 'unchanged', undefined],
      [other.user_id, 'deactivated', undefined],
    ]);
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(401);
    expect(await sessionRevoked(t, a.tenant, session)).toBe(true);
    expect((await activityOf(t, a.tenant, other.user_id)).at(-1)).toMatchObject({ activity_type: 'user_deactivated', actor_user_id: a.adminUserId });
    expect((await a.admin.get(`/api/v1/users/${b.adminUserId}`)).statusCode).toBe(404);
    expect((await b.admin.get(`/api/v1/users/${b.adminUserId}`)).json().data.is_inactive).toBe(false);
  });

  it('reactivates with deactivate: false', async () => {
    const { tenant, admin } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    await admin.put('/api/v1/users/bulk/deactivate', { user_ids: [tech.userId] });
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(401);
    const res = await admin.put('/api/v1/users/bulk/deactivate', { user_ids: [tech.userId], deactivate: false });
    expect(res.json().data.results).toEqual([{ user_id: tech.userId, status: 'activated' }]);
    expect((await tech.api.get(`/api/v1/users/${tech.userId}`)).statusCode).toBe(200);
  });

  it('never deactivates the last active Admin, even when all admins are in one batch', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const second = await makeUser(t, tenant, { role: 'Admin' });
    const manager = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:update', 'user:read']) });
    const res = await manager.api.put('/api/v1/users/bulk/deactivate', { user_ids: [adminUserId, second.userId] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.results.map((r: { status: string }) => r.status)).toEqual(['deactivated', 'error']);
    expect(res.json().data.results[1].error.code).toBe('CONFLICT');
    expect((await second.api.get(`/api/v1/users/${second.userId}`)).statusCode).toBe(200);
  });

  it('validates the body, needs user:update, and answers 401', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    for (const body of [{}, { user_ids: [] }, { user_ids: ['x'] }, { user_ids: [adminUserId, adminUserId] }, { user_ids: Array.from({ length: 101 }, randomId) }, { user_ids: [adminUserId], deactivate: 'yes' }]) {
      expectError(await admin.put('/api/v1/users/bulk/deactivate', body), 400, 'VALIDATION_ERROR');
    }
    expectError(await anonymous(t).put('/api/v1/users/bulk/deactivate', { user_ids: [adminUserId] }), 401, 'UNAUTHORIZED');
    const denied = await (await makeUser(t, tenant, { role: 'Viewer' })).api.put('/api/v1/users/bulk/deactivate', { user_ids: [adminUserId] });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:update']);
  });
});
