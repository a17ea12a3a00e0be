import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Res } from '../../../test/factories.ts';
import { createUser, makeClientRecord, makeRole, randomId } from './users.test-support.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

interface EntryJson {
  activity_id: string;
  user_id: string;
  actor_user_id: string | null;
  activity_type: string;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Activity written directly, with a chosen timestamp. */
async function seed(tenant: string, userId: string, type: 'login' | 'logout' | 'profile_update', at: string) {
  await t.database.db.insertInto('user_activity').values({ tenant, activity_id: randomId(), user_id: userId, activity_type: type, details: '{}', created_at: at }).execute();
}

describe('GET /api/v1/users/{id}/activity', () => {
  it('lists a user’s activity newest first with the full entry shape', async () => {
    const { admin, adminUserId } = await makeTenant(t);
    const user = await createUser(admin);
    await sleep(5);
    await admin.put(`/api/v1/users/${user.user_id}`, { first_name: 'Changed' }, { 'user-agent': 'activity-suite' });
    const res = await admin.get(`/api/v1/users/${user.user_id}/activity`);
    expect(res.statusCode, res.body).toBe(200);
    const entries = res.json().data as EntryJson[];
    expect(entries.map((e) => e.activity_type)).toEqual(['profile_update', 'user_created']);
    expect(Object.keys(entries[0]!).sort()).toEqual(['activity_id', 'activity_type', 'actor_user_id', 'created_at', 'details', 'ip', 'user_agent', 'user_id']);
    expect(entries[0]).toMatchObject({ user_id: user.user_id, actor_user_id: adminUserId, details: { changed_fields: ['first_name'] }, ip: '127.0.0.1', user_agent: 'activity-suite' });
    expect(res.json().pagination).toEqual({ page: 1, limit: 25, total: 2, totalPages: 1, hasNext: false, hasPrev: false });
  });

  it('filters by type and time window, pages, and can run oldest first', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    await seed(tenant, me.userId, 'login', '2026-01-01T10:00:00.000Z');
    await seed(tenant, me.userId, 'logout', '2026-01-01T11:00:00.000Z');
    await seed(tenant, me.userId, 'login', '2026-01-02T10:00:00.000Z');
    await seed(tenant, me.userId, 'profile_update', '2026-01-03T10:00:00.000Z');
    const base = `/api/v1/users/${me.userId}/activity`;
    const at = async (q: string) => ((await me.api.get(base + q)).json().data as EntryJson[]).map((e) => e.created_at);
    expect(await at('?type=login')).toEqual(['2026-01-02T10:00:00.000Z', '2026-01-01T10:00:00.000Z']);
    expect(await at('?since=2026-01-01T11:00:00.000Z&until=2026-01-03T10:00:00.000Z')).toEqual(['2026-01-02T10:00:00.000Z', '2026-01-01T11:00:00.000Z']);
    expect(await at('?limit=1&page=2')).toEqual(['2026-01-02T10:00:00.000Z']);
    expect(await at('?order=asc&limit=2')).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z']);
    for (const q of ['?type=hacked', '?since=yesterday', '?limit=101', '?until=2026-01-01T00:00:00.000Z&since=2026-01-02T00:00:00.000Z', '?user_id=' + me.userId]) {
      expectError(await me.api.get(base + q), 400, 'VALIDATION_ERROR');
    }
  });

  it('yours without permission; others need user:read; 401, 404 for unknown and foreign users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const me = await makeUser(t, a.tenant, {});
    expect((await me.api.get(`/api/v1/users/${me.userId}/activity`)).statusCode).toBe(200);
    const denied = await me.api.get(`/api/v1/users/${a.adminUserId}/activity`);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:read']);
    expectError(await anonymous(t).get(`/api/v1/users/${me.userId}/activity`), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/activity`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(`/api/v1/users/${me.userId}/activity`), 404, 'NOT_FOUND');
  });
});

describe('GET /api/v1/users/activity', () => {
  it('lists the whole tenant’s activity newest first, filterable by user and actor', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const other = await makeTenant(t);
    await createUser(other.admin);
    const u1 = await createUser(admin);
    await sleep(5);
    const u2 = await createUser(admin);
    await sleep(5);
    await seed(tenant, u1.user_id, 'login', new Date(Date.now() + 1000).toISOString());
    const res = await admin.get('/api/v1/users/activity');
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json().data as EntryJson[]).map((e) => [e.activity_type, e.user_id])).toEqual([
      ['login', u1.user_id],
      ['user_created', u2.user_id],
      ['user_created', u1.user_id],
    ]);
    const byUser = await admin.get(`/api/v1/users/activity?user_id=${u2.user_id}`);
    expect(byUser.json().data).toHaveLength(1);
    const byActor = await admin.get(`/api/v1/users/activity?actor_user_id=${adminUserId}&type=user_created`);
    expect(byActor.json().pagination.total).toBe(2);
  });

  it('a client-portal key sees only the activity of users it can see', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClientRecord(admin);
    const colleague = await createUser(admin, { user_type: 'client', client_id: client });
    const staff = await createUser(admin);
    const portal = await makeUser(t, tenant, { role: await makeRole(t, tenant, ['user:read'], { clientPortal: true }), userType: 'client', clientId: client });
    const res = await portal.api.get('/api/v1/users/activity?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    const users = new Set((res.json().data as EntryJson[]).map((e) => e.user_id));
    expect(users).toEqual(new Set([colleague.user_id]));
    const forStaff = await portal.api.get(`/api/v1/users/activity?user_id=${staff.user_id}`);
    expect(forStaff.json().data).toEqual([]);
  });

  it('needs user:read and validates its query', async () => {
    const { tenant, admin } = await makeTenant(t);
    expectError(await anonymous(t).get('/api/v1/users/activity'), 401, 'UNAUTHORIZED');
    const res = await (await makeUser(t, tenant, {})).api.get('/api/v1/users/activity');
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['user:read']);
    for (const q of ['?type=nope', '?user_id=x', '?page=0', '?sort=activity_type']) expectError(await admin.get(`/api/v1/users/activity${q}`), 400, 'VALIDATION_ERROR');
  });
});
