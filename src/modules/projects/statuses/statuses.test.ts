import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, randomId } from '../../../../test/client-factories.ts';
import { makeProject, projectStatuses } from '../../../../test/project-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

describe(`project statuses (${engine})`, () => {
  it('creates, gets, renames, moves the default and deletes; new projects start in the default', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/project-statuses', { name: ' Review ', is_default: true });
    expectStatus(res, 201);
    const review = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/project-statuses/${review.status_id}`);
    expect(review).toMatchObject({ name: 'Review', is_closed: false, is_default: true, order_number: 6 });
    const all = await projectStatuses(admin);
    expect(all.Planning!.is_default).toBe(false);
    expect((await makeProject(admin)).status_name).toBe('Review');
    const got = await admin.get(`/api/v1/project-statuses/${review.status_id}`);
    expectStatus(got, 200);
    const renamed = await admin.put(`/api/v1/project-statuses/${review.status_id}`, { name: 'In Review', order_number: 0 }, { 'if-match': got.headers.etag as string });
    expectStatus(renamed, 200);
    expect(renamed.json().data).toMatchObject({ name: 'In Review', order_number: 0, is_default: true });
    expectError(await admin.put(`/api/v1/project-statuses/${review.status_id}`, { name: 'x' }, { 'if-match': got.headers.etag as string }), 412, 'PRECONDITION_FAILED');
    const extra = (await admin.post('/api/v1/project-statuses', { name: 'Archived', is_closed: true })).json().data;
    expect((await admin.delete(`/api/v1/project-statuses/${extra.status_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`/api/v1/project-statuses/${extra.status_id}`), 404, 'NOT_FOUND');
  });

  it('409 for a duplicate name, deleting the default or a status in use; 422 for a closed default or no default', async () => {
    const { admin } = await makeTenant(t);
    const s = await projectStatuses(admin);
    expectError(await admin.post('/api/v1/project-statuses', { name: 'active' }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/project-statuses/${s.Active!.status_id}`, { name: 'PLANNING' }), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/project-statuses/${s.Planning!.status_id}`), 409, 'CONFLICT');
    await makeProject(admin, { status_id: s['On Hold']!.status_id });
    expectError(await admin.delete(`/api/v1/project-statuses/${s['On Hold']!.status_id}`), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/project-statuses', { name: 'Done-ish', is_closed: true, is_default: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`/api/v1/project-statuses/${s.Completed!.status_id}`, { is_default: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`/api/v1/project-statuses/${s.Planning!.status_id}`, { is_closed: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`/api/v1/project-statuses/${s.Planning!.status_id}`, { is_default: false }), 422, 'UNPROCESSABLE');
    const after = await projectStatuses(admin);
    expect(Object.values(after).filter((x) => x.is_default).map((x) => x.name)).toEqual(['Planning']);
  });

  it('400, 401, 403, 404', async () => {
    const { admin, tenant } = await makeTenant(t);
    const s = await projectStatuses(admin);
    const one = `/api/v1/project-statuses/${s.Active!.status_id}`;
    for (const body of [{}, { name: ' ' }, { name: 'x', color: 'red' }, { name: 'x'.repeat(101) }, { name: 'x', order_number: -1 }]) {
      expectError(await admin.post('/api/v1/project-statuses', body), 400, 'VALIDATION_ERROR');
    }
    expectError(await admin.put(one, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.get('/api/v1/project-statuses/nope'), 400, 'VALIDATION_ERROR');
    const anon = anonymous(t);
    for (const res of [await anon.post('/api/v1/project-statuses', { name: 'x' }), await anon.get(one), await anon.put(one, { name: 'x' }), await anon.delete(one)]) expect(res.statusCode).toBe(401);
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expectStatus(await manager.get(one), 200);
    expectError(await manager.post('/api/v1/project-statuses', { name: 'x' }), 403, 'FORBIDDEN');
    expectError(await manager.put(one, { name: 'x' }), 403, 'FORBIDDEN');
    expectError(await manager.delete(one), 403, 'FORBIDDEN');
    expectError(await (await makeUser(t, tenant, {})).api.get(one), 403, 'FORBIDDEN');
    expectError(await admin.get(`/api/v1/project-statuses/${randomId()}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/v1/project-statuses/${randomId()}`, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`/api/v1/project-statuses/${randomId()}`), 404, 'NOT_FOUND');
    const b = await makeTenant(t);
    for (const res of [await b.admin.get(one), await b.admin.put(one, { name: 'Hijacked' }), await b.admin.delete(one)]) expectError(res, 404, 'NOT_FOUND');
    expect((await admin.get(one)).json().data.name).toBe('Active');
  });
});
