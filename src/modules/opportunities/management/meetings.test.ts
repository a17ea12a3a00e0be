import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import { newId } from '../../../platform/ids.ts';
import { createMeetingsService } from './meetings.service.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const OPPS = '/api/v1/opportunities';
const SESSIONS = `${OPPS}/meeting-sessions`;

interface ReviewJson { review_id: string; session_id: string; opportunity_id: string; reviewed_at: string; note: string | null }
interface SessionJson { session_id: string; started_by: string; session_date: string; started_at: string; created_at: string; reviews: ReviewJson[] }

async function makeDeal(api: Api, clientId: string): Promise<string> {
  const res = await api.post(OPPS, { client_id: clientId, title: 'Deal', opportunity_type: 'expansion', currency_code: 'USD', next_action: 'Call', next_action_due: '2026-12-01T10:00:00.000Z' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.opportunity_id as string;
}

const sessionRows = (tenant: string) => t.database.db.selectFrom('opportunity_meeting_sessions').selectAll().where('tenant', '=', tenant).execute();

describe('meeting sessions', () => {
  it("starts the caller's session of the UTC day once: the first POST is a 201, a repeat a 200 with the same session; one row", async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    expect((await admin.get(`${SESSIONS}/active`)).json()).toEqual({ data: null });

    const first = await admin.post(SESSIONS);
    expect(first.statusCode, first.body).toBe(201);
    const s = first.json().data as SessionJson;
    expect(s).toMatchObject({ started_by: adminUserId, session_date: new Date().toISOString().slice(0, 10), reviews: [] });
    expect(first.headers.location).toBe(`${SESSIONS}/${s.session_id}`);
    const again = await admin.post(SESSIONS, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toEqual(s);
    const [a, b] = await Promise.all([admin.post(SESSIONS), admin.post(SESSIONS)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect((await sessionRows(tenant)).map((r) => r.session_id)).toEqual([s.session_id]);

    // Another user of the tenant gets a session of their own.
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    const theirs = await manager.api.post(SESSIONS);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().data.session_id).not.toBe(s.session_id);
    expect(await sessionRows(tenant)).toHaveLength(2);
    expect((await admin.get(`${SESSIONS}/active`)).json().data.session_id).toBe(s.session_id);
    expect((await admin.get(`${SESSIONS}/${s.session_id}`)).json().data).toEqual(s);
    expectError(await manager.api.get(`${SESSIONS}/${s.session_id}`), 404, 'NOT_FOUND');
    expectError(await admin.get(`${SESSIONS}/${randomId()}`), 404, 'NOT_FOUND');
  });

  it('a new UTC day is a new session (controlled clock); yesterday\'s is no longer active', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const actor: Actor = { tenant, tenantSlug: 'x', userId: adminUserId, apiKeyId: newId(), userType: 'internal', clientId: null, contactId: null, permissions: new Set(), scopes: null };
    const late = createMeetingsService({ db: t.database.db, now: () => new Date('2026-03-09T23:59:59.999Z') });
    const early = createMeetingsService({ db: t.database.db, now: () => new Date('2026-03-10T00:00:00.000Z') });
    const monday = await late.start(actor);
    expect(monday).toMatchObject({ created: true, session: { session_date: '2026-03-09', started_at: '2026-03-09T23:59:59.999Z' } });
    expect((await late.start(actor)).created).toBe(false);
    expect((await late.active(actor))?.session_id).toBe(monday.session.session_id);
    expect(await early.active(actor)).toBeNull();
    const tuesday = await early.start(actor);
    expect(tuesday).toMatchObject({ created: true, session: { session_date: '2026-03-10' } });
    expect(tuesday.session.session_id).not.toBe(monday.session.session_id);
    expect((await sessionRows(tenant)).map((r) => r.session_date).sort()).toEqual(['2026-03-09', '2026-03-10']);
  });

  it('reviews: the first is a 201, a repeat refreshes reviewed_at (200) and the note only when sent', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const deal = await makeDeal(admin, client.client_id);
    const deal2 = await makeDeal(admin, client.client_id);
    const s = (await admin.post(SESSIONS)).json().data as SessionJson;
    const url = `${SESSIONS}/${s.session_id}/reviews`;

    const first = await admin.post(url, { opportunity_id: deal, note: '  Waiting on the CFO  ' });
    expect(first.statusCode, first.body).toBe(201);
    const r = first.json().data as ReviewJson;
    expect(r).toMatchObject({ session_id: s.session_id, opportunity_id: deal, note: 'Waiting on the CFO' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const repeat = await admin.post(url, { opportunity_id: deal });
    expect(repeat.statusCode, repeat.body).toBe(200);
    const r2 = repeat.json().data as ReviewJson;
    expect(r2).toMatchObject({ review_id: r.review_id, note: 'Waiting on the CFO' });
    expect(Date.parse(r2.reviewed_at)).toBeGreaterThan(Date.parse(r.reviewed_at));
    expect((await admin.post(url, { opportunity_id: deal, note: 'Signed next week' })).json().data).toMatchObject({ review_id: r.review_id, note: 'Signed next week' });
    expect((await admin.post(url, { opportunity_id: deal2, note: null })).statusCode).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await admin.post(url, { opportunity_id: deal, note: '   ' })).json().data.note).toBeNull();

    const rows = await t.database.db.selectFrom('opportunity_meeting_reviews').selectAll().where('tenant', '=', tenant).execute();
    expect(rows).toHaveLength(2);
    const active = (await admin.get(`${SESSIONS}/active`)).json().data as SessionJson;
    // By reviewed_at: deal2 was reviewed before deal's last refresh.
    expect(active.reviews.map((x) => [x.opportunity_id, x.note])).toEqual([[deal2, null], [deal, null]]);
    expect(active.reviews[1]!.review_id).toBe(r.review_id);
  });

  it("404 for an unknown or another user's session; 400 naming body.opportunity_id for an unknown deal; 400 for bad bodies", async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const deal = await makeDeal(admin, client.client_id);
    const s = (await admin.post(SESSIONS)).json().data as SessionJson;
    const url = `${SESSIONS}/${s.session_id}/reviews`;
    const manager = await makeUser(t, tenant, { role: 'Manager' });
    expectError(await manager.api.post(url, { opportunity_id: deal }), 404, 'NOT_FOUND');
    expectError(await admin.post(`${SESSIONS}/${randomId()}/reviews`, { opportunity_id: deal }), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.post(url, { opportunity_id: deal }), 404, 'NOT_FOUND');
    expectError(await other.admin.get(`${SESSIONS}/${s.session_id}`), 404, 'NOT_FOUND');

    const unknown = await admin.post(url, { opportunity_id: randomId() });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.json().error.details[0].path).toBe('body.opportunity_id');
    const otherDeal = await makeDeal(other.admin, (await makeClient(other.admin)).client_id);
    expectError(await admin.post(url, { opportunity_id: otherDeal }), 400, 'VALIDATION_ERROR');

    expectError(await admin.post(url, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { opportunity_id: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { opportunity_id: deal, note: 'x'.repeat(4001) }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(url, { opportunity_id: deal, extra: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(SESSIONS, { date: '2026-01-01' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${SESSIONS}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`${SESSIONS}/not-a-uuid/reviews`, { opportunity_id: deal }), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(`${SESSIONS}/active?x=1`), 400, 'VALIDATION_ERROR');
    expect(await t.database.db.selectFrom('opportunity_meeting_reviews').selectAll().where('tenant', '=', tenant).execute()).toEqual([]);
  });

  it('401 without a key; 403: reading needs opportunity:read, reviewing opportunity:update', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const deal = await makeDeal(admin, client.client_id);
    const s = (await admin.post(SESSIONS)).json().data as SessionJson;
    const anon = anonymous(t);
    expectError(await anon.post(SESSIONS), 401, 'UNAUTHORIZED');
    expectError(await anon.get(`${SESSIONS}/active`), 401, 'UNAUTHORIZED');
    expectError(await anon.get(`${SESSIONS}/${s.session_id}`), 401, 'UNAUTHORIZED');
    expectError(await anon.post(`${SESSIONS}/${s.session_id}/reviews`, { opportunity_id: deal }), 401, 'UNAUTHORIZED');
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    expectError(await tech.post(SESSIONS), 403, 'FORBIDDEN');
    expectError(await tech.get(`${SESSIONS}/active`), 403, 'FORBIDDEN');
    const finance = (await makeUser(t, tenant, { role: 'Finance' })).api;
    const own = await finance.post(SESSIONS);
    expect(own.statusCode).toBe(201);
    const denied = await finance.post(`${SESSIONS}/${own.json().data.session_id}/reviews`, { opportunity_id: deal });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['opportunity:update']);
  });
});
