import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTicket } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('ticket tags', () => {
  it('lists, adds (idempotently, regardless of case), replaces and removes tags', async () => {
    const { admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { tags: ['beta'] });
    const base = `/api/v1/tickets/${ticket.ticket_id}/tags`;
    const list = await admin.get(base);
    expectStatus(list, 200);
    expect(list.json().data).toEqual(['beta']);
    expect(list.headers.etag).toBeTruthy();

    const added = await admin.post(base, { tag: ' Needs Parts/Order ' });
    expectStatus(added, 201);
    expect(added.json().data).toEqual(['beta', 'Needs Parts/Order']);
    expect(added.headers.location).toBe(`${base}/Needs%20Parts%2FOrder`);
    const again = await admin.post(base, { tag: 'needs parts/order' });
    expectStatus(again, 200);
    expect(again.json().data).toEqual(['beta', 'Needs Parts/Order']);

    expectStatus(await admin.delete(`${base}/${encodeURIComponent('NEEDS PARTS/ORDER')}`), 204);
    expect((await admin.get(base)).json().data).toEqual(['beta']);
    expectError(await admin.delete(`${base}/missing`), 404, 'NOT_FOUND');

    const replaced = await admin.put(base, { tags: ['Zeta', 'alpha', 'ALPHA'] });
    expectStatus(replaced, 200);
    expect(replaced.json().data).toEqual(['alpha', 'Zeta']);
    expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data.tags).toEqual(['alpha', 'Zeta']);
    expect((await admin.get('/api/v1/tickets?tag=zeta')).json().data.map((x: { ticket_id: string }) => x.ticket_id)).toEqual([ticket.ticket_id]);
    expectStatus(await admin.put(base, { tags: [] }), 200);
    expect((await admin.get(base)).json().data).toEqual([]);
  });

  it('honours If-Match against the tag list and refuses a 51st tag', async () => {
    const { admin } = await makeTenant(t);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { tags: Array.from({ length: 50 }, (_, i) => `t${i}`) });
    const base = `/api/v1/tickets/${ticket.ticket_id}/tags`;
    const etag = String((await admin.get(base)).headers.etag);
    expectError(await admin.post(base, { tag: 'one-too-many' }), 422, 'UNPROCESSABLE');
    expectStatus(await admin.put(base, { tags: ['a'] }, { 'if-match': etag }), 200);
    expectError(await admin.put(base, { tags: ['b'] }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.delete(`${base}/a`, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.delete(`${base}/a`, { 'if-match': String((await admin.get(base)).headers.etag) }), 204);
  });

  it('answers 400 for bad tags, 403 without ticket:update, 404 for unknown or foreign tickets', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ticket = await makeTicket(a.admin, (await makeClient(a.admin)).client_id, { tags: ['x'] });
    const base = `/api/v1/tickets/${ticket.ticket_id}/tags`;
    for (const body of [{}, { tag: '' }, { tag: '   ' }, { tag: 'x'.repeat(65) }, { tag: 'tab\there' }, { tags: ['x'] }]) {
      expectError(await a.admin.post(base, body), 400, 'VALIDATION_ERROR');
    }
    expectError(await a.admin.put(base, { tags: [' '] }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.put(base, { tags: 'x' }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.delete(`${base}/${'x'.repeat(65)}`), 400, 'VALIDATION_ERROR');
    const viewer = await makeUser(t, a.tenant, { role: 'Viewer' });
    expectStatus(await viewer.api.get(base), 200);
    expectError(await viewer.api.post(base, { tag: 'y' }), 403, 'FORBIDDEN');
    expectError(await viewer.api.put(base, { tags: [] }), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(`${base}/x`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get(base), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/tickets/${randomId()}/tags`), 404, 'NOT_FOUND');
    for (const res of [await b.admin.get(base), await b.admin.post(base, { tag: 'y' }), await b.admin.put(base, { tags: [] }), await b.admin.delete(`${base}/x`)]) {
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await a.admin.get(base)).json().data).toEqual(['x']);
  });
});
