import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { anonymous, eventsOf, expectError, randomId } from '../../../test/client-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function createTeam(api: Api, body: Record<string, unknown>): Promise<{ team_id: string; team_name: string }> {
  const res = await api.post('/api/v1/teams', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

async function activityTypes(tenant: string, userId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('user_activity')
    .select('activity_type')
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('activity_id')
    .execute();
  return rows.map((r) => r.activity_type);
}

describe('GET /api/v1/users/{id}/teams', () => {
  it('lists a user’s teams by name with manager flags', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const other = await makeUser(t, tenant);
    const zulu = await createTeam(admin, { team_name: 'Zulu', manager_id: tech.userId });
    const alpha = await createTeam(admin, { team_name: 'alpha', manager_id: other.userId, member_ids: [tech.userId] });
    await createTeam(admin, { team_name: 'Not mine' });
    const res = await admin.get(`/api/v1/users/${tech.userId}/teams`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      { team_id: alpha.team_id, team_name: 'alpha', manager_id: other.userId, is_manager: false, joined_at: expect.stringMatching(/Z$/) },
      { team_id: zulu.team_id, team_name: 'Zulu', manager_id: tech.userId, is_manager: true, joined_at: expect.stringMatching(/Z$/) },
    ]);
  });

  it('lets users read their own teams without team:read; others need it (403)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant);
    await createTeam(admin, { team_name: 'Mine', member_ids: [me.userId] });
    const own = await me.api.get(`/api/v1/users/${me.userId}/teams`);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().data.map((m: { team_name: string }) => m.team_name)).toEqual(['Mine']);
    const denied = await me.api.get(`/api/v1/users/${(await makeUser(t, tenant)).userId}/teams`);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['team:read']);
  });

  it('answers 404 for unknown and foreign users, 400 for malformed ids and query parameters, 401 without a key', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    expectError(await b.admin.get(`/api/v1/users/${a.adminUserId}/teams`), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/teams`), 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/users/me/teams'), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get(`/api/v1/users/${a.adminUserId}/teams?page=2`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).get(`/api/v1/users/${a.adminUserId}/teams`), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/v1/users/{id}/teams', () => {
  it('joins the user to the team (201), records team_join and emits team.updated; joining again is 200 and changes nothing', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Network' });
    const res = await admin.post(`/api/v1/users/${tech.userId}/teams`, { team_id: team.team_id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({ team_id: team.team_id, team_name: 'Network', manager_id: null, is_manager: false, joined_at: expect.any(String) });
    expect(res.headers.location).toBe(`/api/v1/teams/${team.team_id}/members`);
    expect(await activityTypes(tenant, tech.userId)).toEqual(['team_join']);
    expect((await eventsOf(t, tenant, team.team_id)).at(-1)).toMatchObject({ event_type: 'team.updated', payload: { added_user_ids: [tech.userId] } });

    const again = await admin.post(`/api/v1/users/${tech.userId}/teams`, { team_id: team.team_id });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toEqual(res.json().data);
    expect(await activityTypes(tenant, tech.userId)).toEqual(['team_join']);
    expect(await eventsOf(t, tenant, team.team_id)).toHaveLength(2);
  });

  it('refuses client-portal and inactive users (422)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const team = await createTeam(admin, { team_name: 'Internal only' });
    const client = await makeUser(t, tenant, { userType: 'client', clientId: randomId() });
    expectError(await admin.post(`/api/v1/users/${client.userId}/teams`, { team_id: team.team_id }), 422, 'UNPROCESSABLE');
    const gone = await makeUser(t, tenant);
    await t.database.db.updateTable('users').set({ is_inactive: true }).where('tenant', '=', tenant).where('user_id', '=', gone.userId).execute();
    expectError(await admin.post(`/api/v1/users/${gone.userId}/teams`, { team_id: team.team_id }), 422, 'UNPROCESSABLE');
  });

  it('rejects an unknown or foreign team and bad bodies (400)', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const foreign = await createTeam(b.admin, { team_name: 'Theirs' });
    expectError(await a.admin.post(`/api/v1/users/${a.adminUserId}/teams`, { team_id: foreign.team_id }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(`/api/v1/users/${a.adminUserId}/teams`, { team_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(`/api/v1/users/${a.adminUserId}/teams`, {}), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.post(`/api/v1/users/${a.adminUserId}/teams`, { team_id: 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('answers 404 for unknown and foreign users, 401 without a key, 403 without team:update (also for oneself)', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const team = await createTeam(a.admin, { team_name: 'Ours' });
    expectError(await b.admin.post(`/api/v1/users/${a.adminUserId}/teams`, { team_id: team.team_id }), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`/api/v1/users/${randomId()}/teams`, { team_id: team.team_id }), 404, 'NOT_FOUND');
    expectError(await anonymous(t).post(`/api/v1/users/${a.adminUserId}/teams`, { team_id: team.team_id }), 401, 'UNAUTHORIZED');
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const denied = await tech.api.post(`/api/v1/users/${tech.userId}/teams`, { team_id: team.team_id });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['team:update']);
  });
});

describe('DELETE /api/v1/users/{id}/teams/{teamId}', () => {
  it('takes the user out of the team and records team_leave', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Leaving', member_ids: [tech.userId] });
    const res = await admin.delete(`/api/v1/users/${tech.userId}/teams/${team.team_id}`);
    expect(res.statusCode, res.body).toBe(204);
    expect((await admin.get(`/api/v1/users/${tech.userId}/teams`)).json().data).toEqual([]);
    expect(await activityTypes(tenant, tech.userId)).toEqual(['team_join', 'team_leave']);
  });

  it('refuses to take out the team’s manager (409); someone who is not a member is a 404', async () => {
    const { admin, tenant } = await makeTenant(t);
    const lead = await makeUser(t, tenant);
    const outsider = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Led', manager_id: lead.userId });
    expectError(await admin.delete(`/api/v1/users/${lead.userId}/teams/${team.team_id}`), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/users/${outsider.userId}/teams/${team.team_id}`), 404, 'NOT_FOUND');
  });

  it('honours If-Match against the team (412)', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant);
    const team = await createTeam(admin, { team_name: 'Guarded', member_ids: [tech.userId] });
    expectError(await admin.delete(`/api/v1/users/${tech.userId}/teams/${team.team_id}`, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
  });

  it('answers 404 for unknown or foreign users and teams, 400 for malformed ids, 401 without a key, 403 without team:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    const team = await createTeam(a.admin, { team_name: 'Isolated', member_ids: [tech.userId] });
    expectError(await b.admin.delete(`/api/v1/users/${tech.userId}/teams/${team.team_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/users/${tech.userId}/teams/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/users/${randomId()}/teams/${team.team_id}`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/users/${tech.userId}/teams/x`), 400, 'VALIDATION_ERROR');
    expectError(await anonymous(t).delete(`/api/v1/users/${tech.userId}/teams/${team.team_id}`), 401, 'UNAUTHORIZED');
    expectError(await tech.api.delete(`/api/v1/users/${tech.userId}/teams/${team.team_id}`), 403, 'FORBIDDEN');
    expect((await a.admin.get(`/api/v1/teams/${team.team_id}`)).json().data.member_count).toBe(1);
  });
});
