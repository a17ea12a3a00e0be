import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../harness.ts';
import { makeTenant, type Api } from '../factories.ts';
import { expectError, expectStatus, makeClient, makeContact } from '../client-factories.ts';
import { makeTicket } from '../ticket-factories.ts';
import { makeAsset } from '../asset-factories.ts';
import { makeProject } from '../project-factories.ts';
import { defineList, listPage } from '../../src/platform/http/list.ts';

/**
 * The keyset walk every list has (platform/http/keyset.ts): `sort=updated_at` ascending, `nextCursor`
 * on every page with rows after it, `cursor` continuing after it without offset or count.
 */
let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

type Row = Record<string, unknown> & { updated_at: string };
interface Pagination { page?: number; total?: number; totalPages?: number; limit: number; hasNext: boolean; hasPrev: boolean; nextCursor?: string }
interface Walked { rows: Row[]; pages: Pagination[] }

const withCursor = (path: string, cursor: string | undefined) =>
  cursor === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;

async function page(api: Api, path: string, cursor?: string): Promise<{ data: Row[]; pagination: Pagination }> {
  const res = await api.get(withCursor(path, cursor));
  expectStatus(res, 200);
  return res.json() as { data: Row[]; pagination: Pagination };
}

/** Every page of a walk, following nextCursor until a page has none; `between` runs after each page. */
async function walk(api: Api, path: string, between?: (pageNo: number) => Promise<void>): Promise<Walked> {
  const rows: Row[] = [];
  const pages: Pagination[] = [];
  let cursor: string | undefined;
  for (let n = 1; n < 100; n++) {
    const p = await page(api, path, cursor);
    rows.push(...p.data);
    pages.push(p.pagination);
    cursor = p.pagination.nextCursor;
    if (cursor === undefined) return { rows, pages };
    if (between) await between(n);
  }
  throw new Error('the walk did not end');
}

const idsOf = (rows: Row[], key: string) => rows.map((r) => r[key] as string);

/** Orders (updated_at, id) pairs the way the walk must: ascending updated_at, then ascending id. */
const keyOrder = (rows: Row[], key: string) =>
  [...rows].sort((a, b) => a.updated_at.localeCompare(b.updated_at) || (a[key] as string).localeCompare(b[key] as string)).map((r) => r[key]);

function expectWellFormedWalk(w: Walked, total: number, limit: number): void {
  const [first, ...rest] = w.pages;
  expect(first).toMatchObject({ page: 1, limit, total, hasPrev: false });
  if (total > limit) expect(first!.nextCursor).toEqual(expect.any(String));
  for (const p of rest) {
    expect(p.page).toBeUndefined();
    expect(p.total).toBeUndefined();
    expect(p.totalPages).toBeUndefined();
    expect(p.hasPrev).toBe(true);
  }
  const last = w.pages.at(-1)!;
  expect(last.nextCursor).toBeUndefined();
  expect(last.hasNext).toBe(false);
  expect(w.pages.length).toBe(Math.max(1, Math.ceil(total / limit)));
}

/**
 * Lists whose rows have no updated_at to walk by: provider data read live (RMM devices and software, the
 * QuickBooks reference lists) and an aggregate report (a row per client, recomputed on every request).
 */
const WITHOUT_KEYSET = new Set([
  '/api/v1/rmm/integrations/:integrationId/devices',
  '/api/v1/assets/:id/software',
  '/api/v1/quickbooks/accounts',
  '/api/v1/quickbooks/items',
  '/api/v1/quickbooks/tax-codes',
  '/api/v1/quickbooks/terms',
  '/api/v1/quickbooks/payment-methods',
  '/api/v1/opportunities/qbr/yield',
]);

/** The routes that answer with the list envelope ({data, pagination}). */
function listRoutes() {
  return t.app.routeTable.filter((r) => {
    const schema = r.schema as { response?: Record<number, { properties?: object }> } | undefined;
    return r.method === 'GET' && 'pagination' in (schema?.response?.[200]?.properties ?? {});
  });
}

describe('keyset walk (sort=updated_at&cursor=)', () => {
  it('is offered by every list route (cursor, and updated_at among the sorts)', () => {
    const lists = listRoutes();
    expect(lists.length).toBeGreaterThan(50);
    const missing = lists.filter((r) => !WITHOUT_KEYSET.has(r.url)).filter((r) => {
      const q = (r.schema as { querystring?: { properties?: Record<string, { enum?: string[] }> } }).querystring?.properties ?? {};
      return !('cursor' in q) || !(q.sort?.enum ?? []).includes('updated_at');
    });
    expect(missing.map((r) => r.url)).toEqual([]);
  });

  it('runs the first page and a cursor page of every list route without path parameters (never a 500)', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    await makeClient(admin);
    await makeContact(admin, { client_id: client.client_id });
    await makeContact(admin, { client_id: client.client_id });
    const lists = listRoutes().filter((r) => !r.url.includes(':') && !WITHOUT_KEYSET.has(r.url));
    expect(lists.length).toBeGreaterThan(30);
    let followed = 0;
    for (const r of lists) {
      // Project search needs its text; every other list takes the walk's parameters alone.
      const path = `${r.url}?sort=updated_at&limit=1${r.url.endsWith('/projects/search') ? '&query=x' : ''}`;
      const first = await admin.get(path);
      // 409: the QuickBooks lists answer that the integration is not configured on this server.
      expect([200, 409], `${path}: ${first.body}`).toContain(first.statusCode);
      if (first.statusCode !== 200) continue;
      const cursor = (first.json() as { pagination: Pagination }).pagination.nextCursor;
      if (cursor === undefined) continue;
      const next = await admin.get(withCursor(path, cursor));
      expect(next.statusCode, `${path} (cursor): ${next.body}`).toBe(200);
      followed++;
    }
    expect(followed).toBeGreaterThan(5);
  });

  it('walks clients (a late-joined list), tickets, assets, projects and contacts: every row once, in (updated_at, id) order', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    for (let i = 0; i < 4; i++) await makeClient(admin);
    for (let i = 0; i < 5; i++) await makeTicket(admin, client.client_id);
    for (let i = 0; i < 5; i++) await makeAsset(admin, { client_id: client.client_id });
    for (let i = 0; i < 5; i++) await makeProject(admin, { client_id: client.client_id });
    for (let i = 0; i < 5; i++) await makeContact(admin, { client_id: client.client_id });
    const lists: [string, string, number][] = [
      ['/api/v1/clients', 'client_id', 5],
      ['/api/v1/tickets', 'ticket_id', 5],
      ['/api/v1/assets', 'asset_id', 5],
      ['/api/v1/projects', 'project_id', 5],
      ['/api/v1/contacts', 'contact_id', 5],
    ];
    for (const [path, key, total] of lists) {
      const w = await walk(admin, `${path}?sort=updated_at&limit=2`);
      expectWellFormedWalk(w, total, 2);
      const ids = idsOf(w.rows, key);
      expect(new Set(ids).size, path).toBe(total);
      expect(ids, path).toEqual(keyOrder(w.rows, key));
      // No helper column leaks into the API's rows.
      expect(Object.keys(w.rows[0]!).some((k) => k.startsWith('__')), path).toBe(false);
    }
  });

  it('orders ties on the exact stored updated_at by id: rows sharing a timestamp are neither skipped nor repeated', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (let i = 0; i < 7; i++) await makeClient(admin);
    // Three rows a microsecond apart (the column's precision decides whether they tie), four with one timestamp.
    const ids0 = (await t.database.db.selectFrom('clients').select('client_id').where('tenant', '=', tenant).execute()).map((r) => r.client_id);
    const stamps = ['2026-01-01 00:00:00.123457+00', '2026-01-01 00:00:00.123456+00', '2026-01-01 00:00:00.123458+00'];
    for (const [i, id] of ids0.entries()) {
      const at = stamps[i] ?? '2026-01-01 00:00:00.5+00';
      await sql`update clients set updated_at = ${at}::timestamptz where tenant = ${tenant} and client_id = ${id}`.execute(t.database.db);
    }
    const w = await walk(admin, '/api/v1/clients?sort=updated_at&limit=1');
    expectWellFormedWalk(w, 7, 1);
    const stored = await sql<{ client_id: string }>`select client_id from clients where tenant = ${tenant} order by updated_at, client_id`.execute(t.database.db);
    expect(idsOf(w.rows, 'client_id')).toEqual(stored.rows.map((r) => r.client_id));
  });

  it('a row updated during the walk shows up again at the end with its new updated_at; no row is skipped or otherwise repeated', async () => {
    const { admin } = await makeTenant(t);
    const client = await makeClient(admin);
    const made = [];
    for (let i = 0; i < 8; i++) made.push(await makeTicket(admin, client.client_id));
    const ordered = (await walk(admin, '/api/v1/tickets?sort=updated_at&limit=100')).rows.map((r) => r.ticket_id as string);
    const seenEarly = ordered[0]!;
    const notYetSeen = ordered[5]!;
    const w = await walk(admin, '/api/v1/tickets?sort=updated_at&limit=3', async (n) => {
      if (n !== 1) return;
      expectStatus(await admin.put(`/api/v1/tickets/${seenEarly}`, { title: 'changed after it was read' }), 200);
      expectStatus(await admin.put(`/api/v1/tickets/${notYetSeen}`, { title: 'changed before it was read' }), 200);
    });
    const ids = idsOf(w.rows, 'ticket_id');
    expect(new Set(ids)).toEqual(new Set(ordered));
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.get(seenEarly)).toBe(2);
    for (const id of ordered.filter((x) => x !== seenEarly)) expect(counts.get(id), id).toBe(1);
    // Both changed rows come last, with their new updated_at (the page after the cursor sees the change).
    const tail = w.rows.slice(-2);
    expect(tail.map((r) => r.ticket_id).sort()).toEqual([seenEarly, notYetSeen].sort());
    const again = tail.find((r) => r.ticket_id === seenEarly)!;
    const before = w.rows.find((r) => r.ticket_id === seenEarly)!;
    expect(again.updated_at > before.updated_at).toBe(true);
    expect(again.title).toBe('changed after it was read');
  });

  it('walks a list whose sort whitelist lacks updated_at (derived from the spec) and an in-memory list (automation templates)', async () => {
    const { admin } = await makeTenant(t);
    const users = await walk(admin, '/api/v1/user-roles?sort=updated_at&limit=1');
    expect(new Set(idsOf(users.rows, 'user_id')).size).toBe(users.pages[0]!.total);

    const all = await page(admin, '/api/v1/automation/templates?limit=100');
    const total = all.pagination.total!;
    expect(total).toBeGreaterThan(2);
    const w = await walk(admin, '/api/v1/automation/templates?sort=updated_at&limit=2');
    expectWellFormedWalk(w, total, 2);
    expect(new Set(idsOf(w.rows, 'template_id')).size).toBe(total);
    expect(idsOf(w.rows, 'template_id')).toEqual(keyOrder(w.rows, 'template_id'));
  });

  it('descending updated_at is an ordinary paged sort without cursors', async () => {
    const { admin } = await makeTenant(t);
    for (let i = 0; i < 3; i++) await makeClient(admin);
    const p = await page(admin, '/api/v1/clients?sort=updated_at&order=desc&limit=2');
    expect(p.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true, hasPrev: false });
    const asc = await page(admin, '/api/v1/clients?sort=updated_at&limit=5');
    expect(asc.pagination.nextCursor).toBeUndefined();
    expect(asc.pagination).toMatchObject({ page: 1, total: 3, hasNext: false });
  });

  it('binds a cursor to the list and its filters, not to an instant the list computes per request (as of now)', async () => {
    const { tenant, admin } = await makeTenant(t);
    for (let i = 0; i < 3; i++) await makeClient(admin);
    // Like "pending as of now": the filter's parameter is a fresh instant on every request.
    const spec = () => {
      const base = t.database.db.selectFrom('clients as c').where('c.tenant', '=', tenant).where('c.created_at', '<=', new Date(Date.now() + 60_000));
      return defineList({
        from: base,
        page: base.select(['c.client_id', 'c.updated_at']),
        sorts: { client_id: ['c.client_id'] },
        defaultSort: 'client_id',
        defaultOrder: 'asc',
        tieBreaker: 'c.client_id',
        updatedAt: 'c.updated_at',
      });
    };
    const first = await listPage({ sort: 'updated_at', limit: 2 }, spec(), (rows) => rows);
    await new Promise((r) => setTimeout(r, 5));
    const second = await listPage({ sort: 'updated_at', limit: 2, cursor: first.pagination.nextCursor }, spec(), (rows) => rows);
    expect(new Set([...first.data, ...second.data].map((r) => r.client_id)).size).toBe(3);
    expect(second.pagination.nextCursor).toBeUndefined();
    // Another filter value is another list.
    await expect(listPage({ sort: 'updated_at', limit: 2, cursor: first.pagination.nextCursor, updated_since: '2020-01-01T00:00:00.000Z' }, spec(), (rows) => rows))
      .rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('rejects a tampered, truncated, garbage, foreign or misused cursor with a 400, never a 500', async () => {
    const { admin } = await makeTenant(t);
    const other = await makeTenant(t);
    for (let i = 0; i < 3; i++) await makeClient(admin);
    for (let i = 0; i < 3; i++) await makeClient(other.admin);
    const first = await page(admin, '/api/v1/clients?sort=updated_at&limit=1');
    const cursor = first.pagination.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
    const [body, mac] = cursor.split('.') as [string, string];
    const flipped = `${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}.${mac}`;
    const forged = `${Buffer.from(JSON.stringify({ v: 1, b: 'x', k: ['2026-01-01T00:00:00.000000Z', 'x'] })).toString('base64url')}.${mac}`;
    const bad = [flipped, cursor.slice(0, -3), body, `${cursor}.x`, 'garbage', '...', '%00', forged, 'a'.repeat(600)];
    for (const c of bad) {
      const res = await admin.get(withCursor('/api/v1/clients?sort=updated_at&limit=1', c));
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    // Another list, other filters, another tenant.
    expectError(await admin.get(withCursor('/api/v1/contacts?sort=updated_at&limit=1', cursor)), 400, 'VALIDATION_ERROR');
    expectError(await admin.get(withCursor('/api/v1/clients?sort=updated_at&limit=1&client_type=company', cursor)), 400, 'VALIDATION_ERROR');
    expectError(await other.admin.get(withCursor('/api/v1/clients?sort=updated_at&limit=1', cursor)), 400, 'VALIDATION_ERROR');
    // A cursor is the position of an ascending updated_at walk.
    for (const q of ['sort=updated_at&page=2', 'sort=created_at', '', 'sort=updated_at&order=desc']) {
      const res = await admin.get(withCursor(`/api/v1/clients?limit=1&${q}`, cursor));
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    // The same cursor with a different limit continues the same walk.
    expectStatus(await admin.get(withCursor('/api/v1/clients?sort=updated_at&limit=5', cursor)), 200);
    const res = await admin.get(withCursor('/api/v1/clients?sort=updated_at&limit=1', flipped));
    expect(res.json().error.details).toEqual([{ path: 'querystring.cursor', message: expect.any(String) }]);
  });
});
