import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { makeBoard, makeTicket } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

interface CategoryJson {
  category_id: string;
  category_name: string;
  parent_category_id: string | null;
  board_id: string | null;
}

async function makeCategory(api: Api, body: Record<string, unknown>): Promise<CategoryJson> {
  const res = await api.post('/api/v1/categories', body);
  expectStatus(res, 201);
  return res.json().data;
}

const names = async (api: Api, query = '') => ((await api.get(`/api/v1/categories${query}`)).json().data as CategoryJson[]).map((c) => c.category_name);

describe('categories', () => {
  it('creates categories and one level of subcategories; a subcategory takes its parent\'s board', async () => {
    const { admin } = await makeTenant(t);
    const board = await makeBoard(admin);
    const res = await admin.post('/api/v1/categories', { category_name: ' Hardware ' });
    expectStatus(res, 201);
    const hw = res.json().data as CategoryJson;
    expect(res.headers.location).toBe(`/api/v1/categories/${hw.category_id}`);
    expect(hw).toMatchObject({ category_name: 'Hardware', parent_category_id: null, board_id: null });
    const scoped = await makeCategory(admin, { category_name: 'Onboarding', board_id: board.board_id });
    const sub = await makeCategory(admin, { category_name: 'Laptops', parent_category_id: scoped.category_id });
    expect(sub).toMatchObject({ parent_category_id: scoped.category_id, board_id: board.board_id });
    const deeper = await admin.post('/api/v1/categories', { category_name: 'Too deep', parent_category_id: sub.category_id });
    expectError(deeper, 400, 'VALIDATION_ERROR');
    expect(deeper.json().error.details[0]).toMatchObject({ path: 'body.parent_category_id', message: expect.stringMatching(/one level deep/) });
    expectError(await admin.post('/api/v1/categories', { category_name: 'X', parent_category_id: scoped.category_id, board_id: null }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/categories', { category_name: 'X', parent_category_id: randomId() }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/categories', { category_name: 'X', board_id: randomId() }), 400, 'VALIDATION_ERROR');

    expect(await names(admin)).toEqual(['Hardware', 'Laptops', 'Onboarding']);
    expect(await names(admin, '?top_level=true')).toEqual(['Hardware', 'Onboarding']);
    expect(await names(admin, `?parent_category_id=${scoped.category_id}`)).toEqual(['Laptops']);
    expect(await names(admin, `?board_id=${board.board_id}`)).toEqual(['Laptops', 'Onboarding']);
    expect(await names(admin, '?search=LAP')).toEqual(['Laptops']);
    expect((await admin.get(`/api/v1/categories/${sub.category_id}`)).json().data).toEqual(sub);
  });

  it('names are unique among siblings only, regardless of case', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeCategory(admin, { category_name: 'A' });
    const b = await makeCategory(admin, { category_name: 'B' });
    await makeCategory(admin, { category_name: 'Other', parent_category_id: a.category_id });
    await makeCategory(admin, { category_name: 'Other', parent_category_id: b.category_id });
    expectError(await admin.post('/api/v1/categories', { category_name: 'other', parent_category_id: a.category_id }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/categories', { category_name: 'a' }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/categories/${b.category_id}`, { category_name: 'A' }), 409, 'CONFLICT');
  });

  it('renames and moves categories; a move is refused while tickets use the category or its subcategories', async () => {
    const { admin } = await makeTenant(t);
    const board = await makeBoard(admin);
    const parent = await makeCategory(admin, { category_name: 'Parent' });
    const child = await makeCategory(admin, { category_name: 'Child', parent_category_id: parent.category_id });
    const loose = await makeCategory(admin, { category_name: 'Loose' });
    const url = `/api/v1/categories/${parent.category_id}`;
    const moved = await admin.put(url, { board_id: board.board_id, category_name: 'Parent 2' });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ category_name: 'Parent 2', board_id: board.board_id });
    expect((await admin.get(`/api/v1/categories/${child.category_id}`)).json().data.board_id).toBe(board.board_id);
    const adopt = await admin.put(`/api/v1/categories/${loose.category_id}`, { parent_category_id: parent.category_id });
    expectStatus(adopt, 200);
    expect(adopt.json().data).toMatchObject({ parent_category_id: parent.category_id, board_id: board.board_id });
    expectError(await admin.put(url, { parent_category_id: loose.category_id }), 400, 'VALIDATION_ERROR');
    const other = await makeCategory(admin, { category_name: 'Other' });
    const parentHasKids = await admin.put(url, { parent_category_id: other.category_id });
    expectError(parentHasKids, 409, 'CONFLICT');
    expect(parentHasKids.json().error.details).toEqual({ subcategories: 2 });
    expectError(await admin.put(url, { parent_category_id: parent.category_id }), 400, 'VALIDATION_ERROR');

    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, {
      board_id: board.board_id, status_id: board.statuses.Open!.status_id, category_id: parent.category_id, subcategory_id: child.category_id,
    });
    const busy = await admin.put(url, { board_id: null });
    expectError(busy, 409, 'CONFLICT');
    expect(busy.json().error.details).toEqual({ tickets: 1 });
    expectError(await admin.put(`/api/v1/categories/${child.category_id}`, { parent_category_id: null }), 409, 'CONFLICT');
    expectStatus(await admin.put(url, { category_name: 'Renamed while used' }), 200);
    expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data).toMatchObject({ category_name: 'Renamed while used', subcategory_name: 'Child' });
    const etag = String((await admin.get(url)).headers.etag);
    expectError(await admin.put(url, { category_name: 'X' }, { 'if-match': '"old"' }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.put(url, { category_name: 'X' }, { 'if-match': etag }), 200);
  });

  it('deletes a category without subcategories or tickets', async () => {
    const { admin } = await makeTenant(t);
    const parent = await makeCategory(admin, { category_name: 'Parent' });
    const child = await makeCategory(admin, { category_name: 'Child', parent_category_id: parent.category_id });
    const withKids = await admin.delete(`/api/v1/categories/${parent.category_id}`);
    expectError(withKids, 409, 'CONFLICT');
    expect(withKids.json().error.details).toEqual({ subcategories: 1 });
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { category_id: parent.category_id, subcategory_id: child.category_id });
    const used = await admin.delete(`/api/v1/categories/${child.category_id}`);
    expectError(used, 409, 'CONFLICT');
    expect(used.json().error.details).toEqual({ tickets: 1 });
    expectStatus(await admin.put(`/api/v1/tickets/${ticket.ticket_id}`, { subcategory_id: null }), 200);
    expectStatus(await admin.delete(`/api/v1/categories/${child.category_id}`), 204);
    expectError(await admin.get(`/api/v1/categories/${child.category_id}`), 404, 'NOT_FOUND');
  });

  it('reads need ticket:read, writes settings:update; unknown and foreign categories are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const cat = await makeCategory(a.admin, { category_name: 'Mine' });
    const url = `/api/v1/categories/${cat.category_id}`;
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectStatus(await tech.api.get(url), 200);
    expectError(await tech.api.post('/api/v1/categories', { category_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await tech.api.put(url, { category_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await tech.api.delete(url), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get('/api/v1/categories'), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/categories/${randomId()}`), 404, 'NOT_FOUND');
    for (const res of [await b.admin.get(url), await b.admin.put(url, { category_name: 'X' }), await b.admin.delete(url)]) expectError(res, 404, 'NOT_FOUND');
    expectError(await b.admin.post('/api/v1/categories', { category_name: 'X', parent_category_id: cat.category_id }), 400, 'VALIDATION_ERROR');
    expectError(await a.admin.get('/api/v1/categories?top_level=sometimes'), 400, 'VALIDATION_ERROR');
  });
});
