import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTicket, ticketEvents } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

interface CommentJson {
  comment_id: string;
  comment_text: string;
  is_internal: boolean;
  author_type: string;
  author_user_id: string | null;
  author_name: string | null;
  created_at: string;
}

describe('ticket comments', () => {
  it('adds a comment with its author and lists comments oldest first', async () => {
    const { tenant, adminUserId, admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id);
    const base = `/api/v1/tickets/${ticket.ticket_id}/comments`;
    const res = await admin.post(base, { comment_text: '  Rebooted the printer  ' });
    expectStatus(res, 201);
    const first = res.json().data as CommentJson;
    expect(res.headers.location).toBe(`${base}/${first.comment_id}`);
    expect(first).toMatchObject({ ticket_id: ticket.ticket_id, comment_text: 'Rebooted the printer', is_internal: false, author_type: 'internal', author_user_id: adminUserId, author_name: 'Admin' });
    expect(first.created_at).toBe(res.json().data.updated_at);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const second = (await tech.api.post(base, { comment_text: 'Internal: toner low', is_internal: true })).json().data as CommentJson;
    const list = await admin.get(base);
    expectStatus(list, 200);
    expect(list.json().data.map((c: CommentJson) => c.comment_id)).toEqual([first.comment_id, second.comment_id]);
    expect(list.json().pagination.total).toBe(2);
    expect((await admin.get(`${base}?order=desc&limit=1`)).json().data[0].comment_id).toBe(second.comment_id);
    expect((await admin.get(`${base}?is_internal=true`)).json().data.map((c: CommentJson) => c.author_name)).toEqual(['Test User']);
    expect((await admin.get(`${base}/${second.comment_id}`)).json().data).toEqual(second);
  });

  it('client-portal users comment as client, cannot write internal notes and never see them', async () => {
    const { tenant, admin } = await makeTenant(t);
    const own = await makeClient(admin);
    const other = await makeClient(admin);
    const mine = await makeTicket(admin, own.client_id);
    const theirs = await makeTicket(admin, other.client_id);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: own.client_id });
    const note = (await admin.post(`/api/v1/tickets/${mine.ticket_id}/comments`, { comment_text: 'internal', is_internal: true })).json().data as CommentJson;
    const base = `/api/v1/tickets/${mine.ticket_id}/comments`;
    const res = await portal.api.post(base, { comment_text: 'Still broken' });
    expectStatus(res, 201);
    expect(res.json().data).toMatchObject({ author_type: 'client', author_user_id: portal.userId, is_internal: false });
    const internal = await portal.api.post(base, { comment_text: 'sneaky', is_internal: true });
    expectError(internal, 403, 'FORBIDDEN');
    expect(internal.json().error.message).toMatch(/internal comments/);
    const list = await portal.api.get(base);
    expect(list.json().data.map((c: CommentJson) => c.comment_text)).toEqual(['Still broken']);
    expect(list.json().pagination.total).toBe(1);
    expectError(await portal.api.get(`${base}/${note.comment_id}`), 404, 'NOT_FOUND');
    expectError(await portal.api.post(`/api/v1/tickets/${theirs.ticket_id}/comments`, { comment_text: 'x' }), 404, 'NOT_FOUND');
    expectError(await portal.api.get(`/api/v1/tickets/${theirs.ticket_id}/comments`), 404, 'NOT_FOUND');
  });

  it('needs ticket:update (or ticket:create for portal keys) to comment and ticket:read to list', async () => {
    const { tenant, admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const ticket = await makeTicket(admin, client.client_id);
    const base = `/api/v1/tickets/${ticket.ticket_id}/comments`;
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expectStatus(await viewer.api.get(base), 200);
    const denied = await viewer.api.post(base, { comment_text: 'x' });
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details).toEqual({ required: ['ticket:update'] });
    const creatorOnly = await makeUser(t, tenant, { role: 'Admin', scopes: ['ticket:read', 'ticket:create'] });
    expectError(await creatorOnly.api.post(base, { comment_text: 'x' }), 403, 'FORBIDDEN');
    const noRead = await makeUser(t, tenant, { role: 'Admin', scopes: ['ticket:update'] });
    expectError(await noRead.api.get(base), 403, 'FORBIDDEN');
    expectError(await anonymous(t).post(base, { comment_text: 'x' }), 401, 'UNAUTHORIZED');
    expect((await ticketEvents(t, tenant, ticket.ticket_id)).map((e) => e.event_type)).toEqual(['ticket.created']);
  });

  it('answers 400 for bad bodies and 404 for unknown or foreign tickets and comments', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id);
    const base = `/api/v1/tickets/${ticket.ticket_id}/comments`;
    for (const body of [{}, { comment_text: '' }, { comment_text: ' ' }, { comment_text: 'x'.repeat(10_001) }, { comment_text: 'x', is_internal: 'yes' }, { comment_text: 'x', author_type: 'client' }]) {
      expectError(await a.admin.post(base, body), 400, 'VALIDATION_ERROR');
    }
    expectStatus(await a.admin.post(base, { comment_text: 'x'.repeat(10_000) }), 201);
    expectError(await a.admin.post(`/api/v1/tickets/${randomId()}/comments`, { comment_text: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`${base}/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await b.admin.get(base), 404, 'NOT_FOUND');
    expectError(await b.admin.post(base, { comment_text: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`${base}?order=random`), 400, 'VALIDATION_ERROR');
  });
});
