import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import { anonymous, eventsOf, expectError, makeClient, randomId } from '../../../../test/client-factories.ts';
import { newId } from '../../../platform/ids.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const BASE = '/api/v1/kb-articles/categories';

interface CategoryJson {
  category_id: string;
  name: string;
  description: string | null;
  parent_id: string | null;
  display_order: number;
  article_count: number;
  child_count: number;
}

async function makeCategory(api: Api, body: Record<string, unknown>): Promise<CategoryJson> {
  const res = await api.post(BASE, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as CategoryJson;
}

async function insertArticle(tenant: string, categoryId: string | null): Promise<string> {
  const id = newId();
  await t.database.db
    .insertInto('kb_articles')
    .values({ tenant, article_id: id, title: 'Reset a password', slug: `reset-${id}`, article_type: 'how_to', audience: 'internal', category_id: categoryId, template_id: null })
    .execute();
  return id;
}

const names = async (api: Api, query = '') => {
  const res = await api.get(`${BASE}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as CategoryJson[]).map((c) => c.name);
};

describe('knowledge-base categories', () => {
  it('creates, reads, updates and deletes; counts children and articles; emits through the outbox; ETags', async () => {
    const { tenant, admin } = await makeTenant(t);
    const res = await admin.post(BASE, { name: '  Networking  ', description: 'Routers, VPN, Wi-Fi' });
    expect(res.statusCode, res.body).toBe(201);
    const net = res.json().data as CategoryJson;
    expect(res.headers.location).toBe(`${BASE}/${net.category_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(net).toMatchObject({ name: 'Networking', description: 'Routers, VPN, Wi-Fi', parent_id: null, display_order: 0, article_count: 0, child_count: 0 });

    const vpn = await makeCategory(admin, { name: 'VPN', parent_id: net.category_id, display_order: 5 });
    expect(vpn).toMatchObject({ parent_id: net.category_id, display_order: 5 });
    await insertArticle(tenant, vpn.category_id);
    const got = await admin.get(`${BASE}/${net.category_id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toMatchObject({ child_count: 1, article_count: 0 });
    expect((await admin.get(`${BASE}/${vpn.category_id}`)).json().data).toMatchObject({ child_count: 0, article_count: 1 });
    expect((await admin.get(`${BASE}/${net.category_id}`, { 'if-none-match': got.headers.etag as string })).statusCode).toBe(304);

    const updated = await admin.put(`${BASE}/${net.category_id}`, { name: 'Networks', description: null, display_order: 2 });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data).toMatchObject({ name: 'Networks', description: null, display_order: 2, child_count: 1 });
    expectError(await admin.put(`${BASE}/${net.category_id}`, { name: 'Again' }, { 'if-match': got.headers.etag as string }), 412, 'PRECONDITION_FAILED');
    expect((await admin.put(`${BASE}/${net.category_id}`, { display_order: 3 }, { 'if-match': updated.headers.etag as string })).statusCode).toBe(200);

    const moved = await admin.put(`${BASE}/${vpn.category_id}`, { parent_id: null });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.parent_id).toBeNull();
    expect((await admin.delete(`${BASE}/${net.category_id}`)).statusCode).toBe(204);
    expectError(await admin.get(`${BASE}/${net.category_id}`), 404, 'NOT_FOUND');

    expect((await eventsOf(t, tenant, net.category_id)).map((e) => [e.event_type, e.aggregate_type, e.payload.category_id, e.payload.changed_fields ?? null])).toEqual([
      ['kb_category.created', 'kb_category', net.category_id, null],
      ['kb_category.updated', 'kb_category', net.category_id, ['description', 'display_order', 'name']],
      ['kb_category.updated', 'kb_category', net.category_id, ['display_order']],
      ['kb_category.deleted', 'kb_category', net.category_id, null],
    ]);
    expect((await eventsOf(t, tenant, vpn.category_id)).map((e) => e.event_type)).toEqual(['kb_category.created', 'kb_category.updated']);
  });

  it('lists by display order then name by default; filters by parent (an id or the literal null) and search; sorts; paginates', async () => {
    const { admin } = await makeTenant(t);
    const b = await makeCategory(admin, { name: 'beta', display_order: 1 });
    await makeCategory(admin, { name: 'Alpha', display_order: 1 });
    await makeCategory(admin, { name: 'Zulu', display_order: 0 });
    await makeCategory(admin, { name: 'Child two', parent_id: b.category_id, display_order: 2 });
    await makeCategory(admin, { name: 'Child one', parent_id: b.category_id, display_order: 2 });
    expect(await names(admin)).toEqual(['Zulu', 'Alpha', 'beta', 'Child one', 'Child two']);
    expect(await names(admin, '?parent_id=null')).toEqual(['Zulu', 'Alpha', 'beta']);
    expect(await names(admin, `?parent_id=${b.category_id}`)).toEqual(['Child one', 'Child two']);
    expect(await names(admin, `?parent_id=${randomId()}`)).toEqual([]);
    expect(await names(admin, '?sort=name')).toEqual(['Alpha', 'beta', 'Child one', 'Child two', 'Zulu']);
    expect(await names(admin, '?sort=name&order=desc&search=CHILD')).toEqual(['Child two', 'Child one']);
    expect(await names(admin, '?search=%25')).toEqual([]);
    expect(await names(admin, '?sort=created_at&order=desc&limit=2')).toEqual(['Child one', 'Child two']);
    const list = await admin.get(`${BASE}?parent_id=null&limit=2&page=2`);
    expect(list.json().pagination).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
    expect(list.json().data.map((c: CategoryJson) => c.name)).toEqual(['beta']);
    expect(list.json().data[0]).toMatchObject({ child_count: 2, article_count: 0 });
    expect(await names(admin, `?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
  });

  it('sibling names are unique regardless of case (409); the same name under another parent is fine', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeCategory(admin, { name: 'Email' });
    const b = await makeCategory(admin, { name: 'Printers' });
    expectError(await admin.post(BASE, { name: 'EMAIL' }), 409, 'CONFLICT');
    const sub = await makeCategory(admin, { name: 'Setup', parent_id: a.category_id });
    await makeCategory(admin, { name: 'setup', parent_id: b.category_id });
    expectError(await admin.post(BASE, { name: 'SETUP', parent_id: a.category_id }), 409, 'CONFLICT');
    expectError(await admin.put(`${BASE}/${b.category_id}`, { name: 'email' }), 409, 'CONFLICT');
    // Moving a category next to a sibling of the same name is a conflict too.
    expectError(await admin.put(`${BASE}/${sub.category_id}`, { parent_id: b.category_id }), 409, 'CONFLICT');
    expect((await admin.put(`${BASE}/${a.category_id}`, { name: 'E-mail' })).statusCode).toBe(200);
    expect((await admin.put(`${BASE}/${a.category_id}`, { name: 'e-MAIL' })).json().data.name).toBe('e-MAIL');
  });

  it('a category cannot move under itself or any of its descendants (422 naming the rule)', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeCategory(admin, { name: 'A' });
    const b = await makeCategory(admin, { name: 'B', parent_id: a.category_id });
    const c = await makeCategory(admin, { name: 'C', parent_id: b.category_id });
    for (const target of [c, b, a]) {
      const res = await admin.put(`${BASE}/${a.category_id}`, { parent_id: target.category_id });
      expectError(res, 422, 'UNPROCESSABLE');
      expect(res.json().error.message).toContain('its own ancestor');
    }
    expectError(await admin.put(`${BASE}/${b.category_id}`, { parent_id: c.category_id }), 422, 'UNPROCESSABLE');
    const other = await makeCategory(admin, { name: 'Other' });
    const moved = await admin.put(`${BASE}/${c.category_id}`, { parent_id: other.category_id });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await admin.put(`${BASE}/${a.category_id}`, { parent_id: other.category_id })).statusCode).toBe(200);
    expect((await admin.get(`${BASE}/${other.category_id}`)).json().data.child_count).toBe(2);
  });

  it('deleting a category with child categories or articles is a 409 with the counts', async () => {
    const { tenant, admin } = await makeTenant(t);
    const parent = await makeCategory(admin, { name: 'Parent' });
    const child = await makeCategory(admin, { name: 'Child', parent_id: parent.category_id });
    const withChild = await admin.delete(`${BASE}/${parent.category_id}`);
    expectError(withChild, 409, 'CONFLICT');
    expect(withChild.json().error.details).toEqual({ child_count: 1, article_count: 0 });
    const article = await insertArticle(tenant, child.category_id);
    const inUse = await admin.delete(`${BASE}/${child.category_id}`);
    expectError(inUse, 409, 'CONFLICT');
    expect(inUse.json().error.details).toEqual({ child_count: 0, article_count: 1 });
    await t.database.db.deleteFrom('kb_articles').where('tenant', '=', tenant).where('article_id', '=', article).execute();
    expect((await admin.delete(`${BASE}/${child.category_id}`)).statusCode).toBe(204);
    expect((await admin.delete(`${BASE}/${parent.category_id}`)).statusCode).toBe(204);
    expect(await names(admin)).toEqual([]);
  });

  it('bad input is a 400 naming the field, never a 500', async () => {
    const { admin } = await makeTenant(t);
    const cat = await makeCategory(admin, { name: 'Valid' });
    const foreign = await makeCategory((await makeTenant(t)).admin, { name: 'Foreign' });
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'X', extra: 1 }, 'extra'],
      [{ name: 'X', description: 'd'.repeat(2001) }, 'description'],
      [{ name: 'X', parent_id: 'not-a-uuid' }, 'parent_id'],
      [{ name: 'X', parent_id: randomId() }, 'body.parent_id'],
      [{ name: 'X', parent_id: foreign.category_id }, 'body.parent_id'],
      [{ name: 'X', display_order: -1 }, 'display_order'],
      [{ name: 'X', display_order: 100_001 }, 'display_order'],
      [{ name: 'X', display_order: 1.5 }, 'display_order'],
      [{ name: 'X', display_order: '3' }, 'display_order'],
    ] as const) {
      const res = await admin.post(BASE, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    for (const [body, field] of [
      [{ name: 'Y', bogus: true }, 'bogus'],
      [{ parent_id: randomId() }, 'body.parent_id'],
      [{ parent_id: 'nope' }, 'parent_id'],
      [{ name: ' ' }, 'body.name'],
    ] as const) {
      const res = await admin.put(`${BASE}/${cat.category_id}`, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    expectError(await admin.put(`${BASE}/${cat.category_id}`, {}), 400, 'VALIDATION_ERROR');
    for (const [query, field] of [
      ['?parent_id=nope', 'parent_id'],
      ['?parent_id=NULL', 'parent_id'],
      ['?sort=title', 'sort'],
      ['?order=up', 'order'],
      ['?limit=101', 'limit'],
      ['?unknown=1', 'unknown'],
      [`?search=${'s'.repeat(256)}`, 'search'],
    ] as const) {
      const res = await admin.get(`${BASE}${query}`);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain(field);
    }
    for (const res of [await admin.get(`${BASE}/not-a-uuid`), await admin.put(`${BASE}/123`, { name: 'Z' }), await admin.delete(`${BASE}/xyz`)]) {
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json().error.message).toContain('categoryId');
    }
    expectError(await admin.get(`${BASE}/${cat.category_id}?x=1`), 400, 'VALIDATION_ERROR');
  });

  it('401 without a key; 403 for roles without the permission; portal users read only; 404 unknown and foreign ids', async () => {
    const { tenant, admin } = await makeTenant(t);
    const cat = await makeCategory(admin, { name: 'Mine' });
    expectError(await anonymous(t).get(BASE), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).post(BASE, { name: 'X' }), 401, 'UNAUTHORIZED');
    expectError(await anonymous(t).get(`${BASE}/${cat.category_id}`), 401, 'UNAUTHORIZED');

    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const byTech = await makeCategory(tech.api, { name: 'By tech' });
    expect((await tech.api.put(`${BASE}/${byTech.category_id}`, { display_order: 9 })).statusCode).toBe(200);
    expectError(await tech.api.delete(`${BASE}/${byTech.category_id}`), 403, 'FORBIDDEN');

    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(BASE)).statusCode).toBe(200);
    expectError(await viewer.api.post(BASE, { name: 'X' }), 403, 'FORBIDDEN');

    const client = await makeClient(admin);
    const portal = await makeUser(t, tenant, { role: 'Client User', userType: 'client', clientId: client.client_id });
    expect(await names(portal.api)).toEqual(['Mine', 'By tech']);
    expect((await portal.api.get(`${BASE}/${cat.category_id}`)).statusCode).toBe(200);
    expectError(await portal.api.post(BASE, { name: 'From the portal' }), 403, 'FORBIDDEN');
    expectError(await portal.api.put(`${BASE}/${cat.category_id}`, { name: 'Renamed' }), 403, 'FORBIDDEN');
    expectError(await portal.api.delete(`${BASE}/${cat.category_id}`), 403, 'FORBIDDEN');

    const unknown = randomId();
    expectError(await admin.get(`${BASE}/${unknown}`), 404, 'NOT_FOUND');
    expectError(await admin.put(`${BASE}/${unknown}`, { name: 'X' }), 404, 'NOT_FOUND');
    expectError(await admin.delete(`${BASE}/${unknown}`), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    expectError(await other.admin.get(`${BASE}/${cat.category_id}`), 404, 'NOT_FOUND');
    expectError(await other.admin.put(`${BASE}/${cat.category_id}`, { name: 'Stolen' }), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`${BASE}/${cat.category_id}`), 404, 'NOT_FOUND');
    expect((await other.admin.get(BASE)).json().pagination.total).toBe(0);
    expect((await admin.get(`${BASE}/${cat.category_id}`)).json().data.name).toBe('Mine');
  });
});
