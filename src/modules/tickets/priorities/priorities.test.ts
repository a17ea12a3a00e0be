import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeTicket, prioritiesOf, type PriorityJson } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe('priorities', () => {
  it('creates a priority after the last one, lists by order_number, gets it with an ETag', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/priorities', { priority_name: ' Critical ', color: '#ff0000' });
    expectStatus(res, 201);
    const critical = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/priorities/${critical.priority_id}`);
    expect(critical).toMatchObject({ priority_name: 'Critical', order_number: 4, color: '#FF0000', is_default: false });
    const list = await admin.get('/api/v1/priorities');
    expect(list.json().data.map((p: PriorityJson) => p.priority_name)).toEqual(['Low', 'Medium', 'High', 'Critical']);
    expect((await admin.get('/api/v1/priorities?sort=priority_name')).json().data.map((p: PriorityJson) => p.priority_name)).toEqual(['Critical', 'High', 'Low', 'Medium']);
    const one = await admin.get(`/api/v1/priorities/${critical.priority_id}`);
    expectStatus(one, 200);
    expect(one.json().data).toEqual(critical);
    expectStatus(await admin.get(`/api/v1/priorities/${critical.priority_id}`, { 'if-none-match': String(one.headers.etag) }), 304);
  });

  it('moves the default with is_default; new tickets get it; the default cannot be unset or deleted', async () => {
    const { admin } = await makeTenant(t);
    const p = await prioritiesOf(admin);
    const urgent = (await admin.post('/api/v1/priorities', { priority_name: 'Urgent', is_default: true })).json().data;
    expect(urgent.is_default).toBe(true);
    expect((await admin.get(`/api/v1/priorities/${p.Medium!.priority_id}`)).json().data.is_default).toBe(false);
    expect((await makeTicket(admin, (await makeClient(admin)).client_id)).priority_name).toBe('Urgent');
    expectError(await admin.put(`/api/v1/priorities/${urgent.priority_id}`, { is_default: false }), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/priorities/${urgent.priority_id}`), 409, 'CONFLICT');
    const back = await admin.put(`/api/v1/priorities/${p.Low!.priority_id}`, { is_default: true });
    expectStatus(back, 200);
    expect((await prioritiesOf(admin)).Urgent!.is_default).toBe(false);
  });

  it('updates partially, no-op leaves it alone, If-Match, duplicates and bad input', async () => {
    const { admin } = await makeTenant(t);
    const p = await prioritiesOf(admin);
    const url = `/api/v1/priorities/${p.High!.priority_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    const same = await admin.put(url, { priority_name: 'High' });
    expect(same.headers.etag).toBe(etag);
    const res = await admin.put(url, { priority_name: 'Higher', order_number: 10, color: null }, { 'if-match': etag });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ priority_name: 'Higher', order_number: 10, color: null });
    expectError(await admin.put(url, { order_number: 11 }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(url, { priority_name: 'low' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/priorities', { priority_name: 'MEDIUM' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/priorities', { priority_name: 'X', color: 'red' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/priorities', { priority_name: '  ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
  });

  it('deletes an unused priority; refuses one that tickets use', async () => {
    const { admin } = await makeTenant(t);
    const p = await prioritiesOf(admin);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { priority_id: p.High!.priority_id });
    const res = await admin.delete(`/api/v1/priorities/${p.High!.priority_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ tickets: 1 });
    expectStatus(await admin.delete(`/api/v1/priorities/${p.Low!.priority_id}`), 204);
    expectError(await admin.get(`/api/v1/priorities/${p.Low!.priority_id}`), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data.priority_name).toBe('High');
  });

  it('reads need ticket:read, writes settings:update; unknown and foreign priorities are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const p = await prioritiesOf(a.admin);
    const url = `/api/v1/priorities/${p.Low!.priority_id}`;
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectStatus(await tech.api.get(url), 200);
    expectError(await tech.api.post('/api/v1/priorities', { priority_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await tech.api.put(url, { priority_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get('/api/v1/priorities'), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/priorities/${randomId()}`), 404, 'NOT_FOUND');
    for (const res of [await b.admin.get(url), await b.admin.put(url, { priority_name: 'X' }), await b.admin.delete(url)]) expectError(res, 404, 'NOT_FOUND');
    expect((await b.admin.get('/api/v1/priorities')).body).not.toContain(p.Low!.priority_id);
  });
});
