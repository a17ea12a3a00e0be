import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, unique, type Api } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

interface MemberJson { user_id: string; username: string; first_name: string | null; last_name: string | null; joined_at: string }
interface TeamJson {
  team_id: string;
  team_name: string;
  description: string | null;
  manager_id: string | null;
  members: MemberJson[];
  member_count: number;
  created_at: string;
  updated_at: string;
}

async function createTeam(api: Api, body: Record<string, unknown> = {}): Promise<TeamJson> {
  const res = await api.post('/api/v1/teams', { team_name: unique('Team'), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as TeamJson;
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

async function deactivate(tenant: string, userId: string) {
  await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', userId).execute();
}

describe('POST /api/v1/teams', () => {
  it('creates a team with a manager and members; the manager becomes a member; joins are recorded', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const lead = await makeUser(t, tenant, { role: 'Technician' });
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const res = await admin.post('/api/v1/teams', { team_name: '  Service desk ', description: 'First line', manager_id: lead.userId, member_ids: [tech.userId] });
    expect(res.statusCode, res.body).toBe(201);
    const team = res.json().data as TeamJson;
    expect(team).toMatchObject({ team_name: 'Service desk', description: 'First line', manager_id: lead.userId, member_count: 2 });
    expect(team.members.map((m) => m.user_id).sort()).toEqual([lead.userId, tech.userId].sort());
    expect(team.members[0]).toEqual({ user_id: expect.any(String), username: expect.any(String), first_name: 'Test', last_name: 'User', joined_at: expect.stringMatching(/\.\d{3}Z$/) });
    expect(res.headers.location).toBe(`/api/v1/teams/${team.team_id}`);
    expect(await activityOf(tenant, tech.userId)).toEqual([
      { activity_type: 'team_join', actor_user_id: adminUserId, details: { team_id: team.team_id, team_name: 'Service desk' } },
    ]);
    const [created] = await eventsOf(t, tenant, team.team_id);
    expect(created).toMatchObject({ event_type: 'team.created', aggregate_type: 'team', payload: { team_id: team.team_id, manager_id: lead.userId } });
  });

  it('creates an empty team without a manager', async () => {
    const { admin } = await makeTenant(t);
    const team = await createTeam(admin, { team_name: 'Projects' });
    expect(team).toMatchObject({ team_name: 'Projects', description: null, manager_id: null, members: [], member_count: 0 });
  });

  it('rejects a name already taken in any letter case (409); other tenants may reuse it', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    await createTeam(a.admin, { team_name: 'Network' });
    expectError(await a.admin.post('/api/v1/teams', { team_name: 'NETWORK' }), 409, 'CONFLICT');
    await createTeam(b.admin, { team_name: 'Network' });
  });

  it('rejects bad bodies (400): blank or long names, long descriptions, unknown or foreign users, unknown fields', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const foreign = await makeUser(t, b.tenant);
    for (const body of [
      { team_name: ' ' },
      { team_name: 'x'.repeat(101) },
      { team_name: 'd', description: 'x'.repeat(501) },
      { team_name: 'm', manager_id: randomId() },
      { team_name: 'f', manager_id: foreign.userId },
      { team_name: 'u', member_ids: [randomId()] },
      { team_name: 'x', member_ids: [] },
      { team_name: 'y', colour: 'blue' },
      {},
    ]) {
      expectError(await a.admin.post('/api/v1/teams', body), 400, 'VALIDATION_ERROR');
    }
  });

  it('refuses client-portal and inactive users as members or manager (422)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const client = await makeUser(t, tenant, { userType: 'client', clientId: randomId(), role: 'Client User' });
    const gone = await makeUser(t, tenant);
    await deactivate(tenant, gone.userId);
    const res = await admin.post('/api/v1/teams', { team_name: 'Mixed', member_ids: [client.userId] });
    expectError(res, 422, 'UNPROCESSABLE');
    expect(res.json().error.details.user_ids).toEqual([client.userId]);
    expectError(await admin.post('/api/v1/teams', { team_name: 'Mixed', manager_id: client.userId }), 422, 'UNPROCESSABLE');
    expectError(await admin.post('/api/v1/teams', { team_name: 'Mixed', member_ids: [gone.userId] }), 422, 'UNPROCESSABLE');
    expect((await admin.get('/api/v1/teams')).json().data).toEqual([]);
  });

  it('needs a key (401) and team:create (403)', async () => {
    const { tenant } = await makeTenant(t);
    expectError(await anonymous(t).post('/api/v1/teams', { team_name: 'x' }), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Technician' });
    const res = await api.post('/api/v1/teams', { team_name: 'x' });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.json().error.details.required).toEqual(['team:create']);
  });
});

describe('GET /api/v1/teams', () => {
  it('lists teams by name with their members, filters by manager and member, searches and paginates', async () => {
    const { admin, tenant } = await makeTenant(t);
    const lead = await makeUser(t, tenant);
    const tech = await makeUser(t, tenant);
    const desk = await createTeam(admin, { team_name: 'Desk', description: 'Tickets all day', manager_id: lead.userId });
    const field = await createTeam(admin, { team_name: 'field', member_ids: [tech.userId] });
    const alpha = await createTeam(admin, { team_name: 'Alpha' });
    const names = async (q: string) => (await admin.get(`/api/v1/teams${q}`)).json().data.map((x: TeamJson) => x.team_name);
    const all = await admin.get('/api/v1/teams');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().data.map((x: TeamJson) => x.team_id)).toEqual([alpha.team_id, desk.team_id, field.team_id]);
    expect(all.json().data[1].members.map((m: MemberJson) => m.user_id)).toEqual([lead.userId]);
    expect(all.json().pagination).toMatchObject({ total: 3, page: 1 });
    expect(await names(`?manager_id=${lead.userId}`)).toEqual(['Desk']);
    expect(await names(`?member_id=${tech.userId}`)).toEqual(['field']);
    expect(await names('?search=TICKETS')).toEqual(['Desk']);
    expect(await names('?order=desc&limit=2&page=1')).toEqual(['field', 'Desk']);
    expect(await names('?sort=created_at&order=asc')).toEqual(['Desk', 'field', 'Alpha']);
  });

  it('rejects bad query parameters (400), needs a key (401) and team:read (403)', async () => {
    const { admin, tenant } = await makeTenant(t);
    expectError(await admin.get('/api/v1/teams?limit=500'), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/teams?manager_id=bob'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get('/api/v1/teams'), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, tenant, { role: 'Client Admin', userType: 'client', clientId: randomId() });
    expectError(await api.get('/api/v1/teams'), 403, 'FORBIDDEN');
  });

  it('never lists another tenant’s teams', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin);
    expect((await b.admin.get('/api/v1/teams')).body).not.toContain(team.team_id);
  });
});

describe('GET /api/v1/teams/{id}', () => {
  it('returns the team with an ETag (304 on If-None-Match)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { member_ids: [tech.userId] });
    const res = await admin.get(`/api/v1/teams/${team.team_id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(team);
    expect((await admin.get(`/api/v1/teams/${team.team_id}`, { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
  });

  it('answers 404 for unknown and foreign teams, 400 for malformed ids, 401 without a key, 403 without team:read', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin);
    expectError(await b.admin.get(`/api/v1/teams/${team.team_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/teams/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/teams/abc'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/teams/${team.team_id}`), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant);
    expectError(await api.get(`/api/v1/teams/${team.team_id}`), 403, 'FORBIDDEN');
  });
});

describe('PUT /api/v1/teams/{id}', () => {
  it('renames, redescribes and changes the manager, who joins the team; emits team.updated', async () => {
    const { admin, tenant } = await makeTenant(t);
    const first = await makeUser(t, tenant);
    const second = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Old', manager_id: first.userId });
    const res = await admin.put(`/api/v1/teams/${team.team_id}`, { team_name: 'New', description: 'Renamed', manager_id: second.userId });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json().data as TeamJson;
    expect(updated).toMatchObject({ team_name: 'New', description: 'Renamed', manager_id: second.userId, member_count: 2 });
    expect((await activityOf(tenant, second.userId)).map((a) => a.activity_type)).toEqual(['team_join']);
    const events = await eventsOf(t, tenant, team.team_id);
    expect(events.at(-1)).toMatchObject({
      event_type: 'team.updated',
      payload: { changed_fields: ['team_name', 'description', 'manager_id', 'members'], added_user_ids: [second.userId] },
    });
    const cleared = await admin.put(`/api/v1/teams/${team.team_id}`, { manager_id: null });
    expect(cleared.json().data).toMatchObject({ manager_id: null, member_count: 2 });
  });

  it('changes nothing when the values are the same', async () => {
    const { admin, tenant } = await makeTenant(t);
    const team = await createTeam(admin, { team_name: 'Same' });
    const res = await admin.put(`/api/v1/teams/${team.team_id}`, { team_name: 'Same', description: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(team);
    expect(await eventsOf(t, tenant, team.team_id)).toHaveLength(1);
  });

  it('rejects a taken name (409), an unknown manager (400), a client-portal manager (422), an empty body (400)', async () => {
    const { admin, tenant } = await makeTenant(t);
    await createTeam(admin, { team_name: 'Taken' });
    const team = await createTeam(admin, { team_name: 'Mine' });
    const client = await makeUser(t, tenant, { userType: 'client', clientId: randomId() });
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, { team_name: 'taken' }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, { manager_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, { manager_id: client.userId }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, { members: [] }), 400, 'VALIDATION_ERROR');
  });

  it('honours If-Match (412)', async () => {
    const { admin } = await makeTenant(t);
    const team = await createTeam(admin);
    const etag = (await admin.get(`/api/v1/teams/${team.team_id}`)).headers.etag as string;
    expect((await admin.put(`/api/v1/teams/${team.team_id}`, { description: 'a' }, { 'if-match': etag })).statusCode).toBe(200);
    expectError(await admin.put(`/api/v1/teams/${team.team_id}`, { description: 'b' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
  });

  it('answers 404 for unknown and foreign teams, 401 without a key, 403 without team:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin, { team_name: 'Kept' });
    expectError(await b.admin.put(`/api/v1/teams/${team.team_id}`, { team_name: 'Hijacked' }), 404, 'NOT_FOUND');
    expectError(await a.admin.put(`/api/v1/teams/${randomId()}`, { team_name: 'x' }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).put(`/api/v1/teams/${team.team_id}`, { team_name: 'x' }), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectError(await api.put(`/api/v1/teams/${team.team_id}`, { team_name: 'x' }), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/teams/${team.team_id}`)).json().data.team_name).toBe('Kept');
  });
});

describe('DELETE /api/v1/teams/{id}', () => {
  it('deletes the team and its memberships; members’ activity records that they left', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Gone soon', member_ids: [tech.userId] });
    const res = await admin.delete(`/api/v1/teams/${team.team_id}`);
    expect(res.statusCode, res.body).toBe(204);
    expectError(await admin.get(`/api/v1/teams/${team.team_id}`), 404, 'NOT_FOUND');
    const rows = await t.database.db.selectFrom('team_members').selectAll().where('tenant', '=', tenant).where('team_id', '=', team.team_id).execute();
    expect(rows).toEqual([]);
    expect((await activityOf(tenant, tech.userId)).at(-1)).toEqual({
      activity_type: 'team_leave', actor_user_id: adminUserId, details: { team_id: team.team_id, team_name: 'Gone soon', reason: 'team_deleted' },
    });
    expect((await eventsOf(t, tenant, team.team_id)).at(-1)).toMatchObject({ event_type: 'team.deleted', payload: { member_ids: [tech.userId] } });
  });

  it('honours If-Match (412)', async () => {
    const { admin } = await makeTenant(t);
    const team = await createTeam(admin);
    expectError(await admin.delete(`/api/v1/teams/${team.team_id}`, { 'if-match': '"old"' }), 412, 'PRECONDITION_FAILED');
  });

  it('answers 404 for unknown and foreign teams, 400 for malformed ids, 401 without a key, 403 without team:delete', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin);
    expectError(await b.admin.delete(`/api/v1/teams/${team.team_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/teams/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete('/api/v1/teams/1'), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(`/api/v1/teams/${team.team_id}`), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await api.delete(`/api/v1/teams/${team.team_id}`), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/teams/${team.team_id}`)).statusCode).toBe(200);
  });
});

describe('GET /api/v1/teams/{id}/members', () => {
  it('lists members by username, paginated, or by join time', async () => {
    const { admin, tenant } = await makeTenant(t);
    const users = [await makeUser(t, tenant), await makeUser(t, tenant), await makeUser(t, tenant)];
    const team = await createTeam(admin, { member_ids: users.map((u) => u.userId) });
    const res = await admin.get(`/api/v1/teams/${team.team_id}/members?limit=2`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(team.members.slice(0, 2));
    expect(res.json().pagination).toMatchObject({ total: 3, totalPages: 2, hasNext: true });
    const desc = await admin.get(`/api/v1/teams/${team.team_id}/members?sort=username&order=desc`);
    expect(desc.json().data.map((m: MemberJson) => m.user_id)).toEqual(team.members.map((m) => m.user_id).reverse());
  });

  it('answers 404 for unknown and foreign teams, 400 for bad queries, 401 without a key, 403 without team:read', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin);
    expectError(await b.admin.get(`/api/v1/teams/${team.team_id}/members`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/teams/${randomId()}/members`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/teams/${team.team_id}/members?sort=email`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/teams/${team.team_id}/members`), 401, 'UNAUTHORIZED');
    const { api } = await makeUser(t, a.tenant, { role: 'Client User', userType: 'client', clientId: randomId() });
    expectError(await api.get(`/api/v1/teams/${team.team_id}/members`), 403, 'FORBIDDEN');
  });
});

describe('POST /api/v1/teams/{id}/members', () => {
  it('adds members idempotently, recording a join only for newcomers', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const one = await makeUser(t, tenant);
    const two = await makeUser(t, tenant);
    const team = await createTeam(admin, { member_ids: [one.userId] });
    const res = await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [one.userId, two.userId] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.member_count).toBe(2);
    expect(await activityOf(tenant, one.userId)).toHaveLength(1);
    expect(await activityOf(tenant, two.userId)).toEqual([{ activity_type: 'team_join', actor_user_id: adminUserId, details: { team_id: team.team_id, team_name: team.team_name } }]);
    expect((await eventsOf(t, tenant, team.team_id)).at(-1)).toMatchObject({ event_type: 'team.updated', payload: { changed_fields: ['members'], added_user_ids: [two.userId], removed_user_ids: [] } });
    const again = await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [two.userId] });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(res.json().data);
    expect(await eventsOf(t, tenant, team.team_id)).toHaveLength(2);
  });

  it('rejects unknown users (400), client-portal users (422) and bad bodies (400)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const team = await createTeam(admin);
    const client = await makeUser(t, tenant, { userType: 'client', clientId: randomId() });
    const missing = randomId();
    const res = await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [missing] });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.message).toContain(missing);
    expectError(await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [client.userId] }), 422, 'UNPROCESSABLE');
    expectError(await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [] }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`/api/v1/teams/${team.team_id}/members`, { user_id: client.userId }), 400, 'VALIDATION_ERROR');
  });

  it('answers 404 for unknown and foreign teams, 401 without a key, 403 without team:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin);
    const user = await makeUser(t, a.tenant, { role: 'Technician' });
    expectError(await b.admin.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [user.userId] }), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`/api/v1/teams/${randomId()}/members`, { user_ids: [user.userId] }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [user.userId] }), 401, 'UNAUTHORIZED');
    const denied = await user.api.post(`/api/v1/teams/${team.team_id}/members`, { user_ids: [user.userId] });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['team:update']);
  });
});

describe('DELETE /api/v1/teams/{id}/members/{userId}', () => {
  it('removes a member, records team_leave and emits team.updated', async () => {
    const { admin, tenant, adminUserId } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { member_ids: [tech.userId] });
    const res = await admin.delete(`/api/v1/teams/${team.team_id}/members/${tech.userId}`);
    expect(res.statusCode, res.body).toBe(204);
    expect((await admin.get(`/api/v1/teams/${team.team_id}`)).json().data.members).toEqual([]);
    expect((await activityOf(tenant, tech.userId)).at(-1)).toEqual({ activity_type: 'team_leave', actor_user_id: adminUserId, details: { team_id: team.team_id, team_name: team.team_name } });
    expect((await eventsOf(t, tenant, team.team_id)).at(-1)).toMatchObject({ event_type: 'team.updated', payload: { changed_fields: ['members'], added_user_ids: [], removed_user_ids: [tech.userId] } });
  });

  it('refuses to remove the manager (409) and answers 404 for someone who is not a member', async () => {
    const { admin, tenant } = await makeTenant(t);
    const lead = await makeUser(t, tenant);
    const outsider = await makeUser(t, tenant);
    const team = await createTeam(admin, { manager_id: lead.userId });
    expectError(await admin.delete(`/api/v1/teams/${team.team_id}/members/${lead.userId}`), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/teams/${team.team_id}/members/${outsider.userId}`), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/teams/${team.team_id}/members/${randomId()}`), 404, 'NOT_FOUND');
  });

  it('answers 404 for foreign teams, 400 for malformed ids, 401 without a key, 403 without team:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const team = await createTeam(a.admin, { member_ids: [tech.userId] });
    expectError(await b.admin.delete(`/api/v1/teams/${team.team_id}/members/${tech.userId}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/teams/${team.team_id}/members/nope`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(`/api/v1/teams/${team.team_id}/members/${tech.userId}`), 401, 'UNAUTHORIZED');
    expectError(await tech.api.delete(`/api/v1/teams/${team.team_id}/members/${tech.userId}`), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/teams/${team.team_id}`)).json().data.member_count).toBe(1);
  });
});
