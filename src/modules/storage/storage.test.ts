import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { apiFor, makeTenant, makeUser, type Api } from '../../../test/factories.ts';
import { DEFAULT_STORAGE_LIMITS } from './storage.limits.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const base = (ns = 'app') => `/api/v1/storage/namespaces/${ns}/records`;
const rec = (key: string, ns = 'app') => `${base(ns)}/${encodeURIComponent(key)}`;

async function usage(tenant: string, namespace: string) {
  const ns = await t.database.db.selectFrom('storage_usage').selectAll().where('tenant', '=', tenant).where('namespace', '=', namespace).executeTakeFirst();
  const total = await t.database.db.selectFrom('storage_tenant_usage').selectAll().where('tenant', '=', tenant).executeTakeFirst();
  return {
    keys: ns?.key_count ?? 0,
    bytes: Number(ns?.bytes ?? 0),
    namespaces: total?.namespace_count ?? 0,
    totalBytes: Number(total?.bytes ?? 0),
  };
}

async function recount(tenant: string) {
  const rows = await t.database.db.selectFrom('storage_records').select(['namespace', 'size_bytes']).where('tenant', '=', tenant).execute();
  return { keys: rows.length, bytes: rows.reduce((n, r) => n + r.size_bytes, 0), namespaces: new Set(rows.map((r) => r.namespace)).size };
}

describe('PUT /api/v1/storage/namespaces/{namespace}/records/{key}', () => {
  it('creates a record at revision 1 with 201, then replaces it at revision 2 with 200', async () => {
    const { admin, tenant } = await makeTenant(t);
    const created = await admin.put(rec('settings'), { value: { theme: 'dark' }, metadata: { owner: 'rmm' } });
    expect(created.statusCode, created.body).toBe(201);
    const r1 = created.json().data;
    expect(r1).toMatchObject({ namespace: 'app', key: 'settings', value: { theme: 'dark' }, metadata: { owner: 'rmm' }, revision: 1, ttlExpiresAt: null });
    expect(r1.createdAt).toMatch(/\.\d{3}Z$/);
    expect(created.headers.location).toBe('/api/v1/storage/namespaces/app/records/settings');
    const replaced = await admin.put(rec('settings'), { value: [1, 2, 3] });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().data).toMatchObject({ value: [1, 2, 3], metadata: null, revision: 2, createdAt: r1.createdAt });
    const row = await t.database.db.selectFrom('storage_records').selectAll().where('tenant', '=', tenant).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ namespace: 'app', key: 'settings', value: '[1,2,3]', metadata: null, revision: 2 });
    expect(await usage(tenant, 'app')).toEqual({ keys: 1, bytes: row.size_bytes, namespaces: 1, totalBytes: row.size_bytes });
  });

  it('accepts any JSON value including null, strings, numbers and booleans', async () => {
    const { admin } = await makeTenant(t);
    for (const [i, value] of [null, 'text', 42.5, false, { nested: { a: [null] } }, 'nul \u0000 inside', { z: 1, a: 2 }].entries()) {
      const res = await admin.put(rec(`k${i}`), { value });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.value).toEqual(value);
      expect((await admin.get(rec(`k${i}`))).json().data.value).toEqual(value);
    }
    // Stored exactly as written: key order kept.
    expect(Object.keys((await admin.get(rec('k6'))).json().data.value)).toEqual(['z', 'a']);
  });

  it('requires value, and metadata must be an object', async () => {
    const { admin } = await makeTenant(t);
    expect((await admin.put(rec('k'), {})).statusCode).toBe(400);
    expect((await admin.put(rec('k'), { value: 1, metadata: [1] })).statusCode).toBe(400);
    expect((await admin.put(rec('k'), { value: 1, metadata: null })).statusCode).toBe(400);
    expect((await admin.put(rec('k'), { value: 1, extra: true })).statusCode).toBe(400);
  });

  it('URL-decodes keys in the path and rejects keys containing a slash', async () => {
    const { admin } = await makeTenant(t);
    const key = 'a b:ü%?#';
    const res = await admin.put(rec(key), { value: 1 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.key).toBe(key);
    expect((await admin.get(rec(key))).json().data.key).toBe(key);
    const slash = await admin.put(`${base()}/a%2Fb`, { value: 1 });
    expect(slash.statusCode, slash.body).toBe(400);
  });

  it('honours ifRevision: a match writes, a mismatch is a 409 with the current revision', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('k'), { value: 1 });
    const ok = await admin.put(rec('k'), { value: 2, ifRevision: 1 });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.revision).toBe(2);
    const stale = await admin.put(rec('k'), { value: 3, ifRevision: 1 });
    expect(stale.statusCode, stale.body).toBe(409);
    expect(stale.json().error).toMatchObject({ code: 'REVISION_MISMATCH', details: { current_revision: 2, expected_revision: 1 } });
    expect((await admin.get(rec('k'))).json().data.value).toBe(2);
  });

  it('ifRevision 0 creates only when absent; another ifRevision on a missing key reports current_revision null', async () => {
    const { admin } = await makeTenant(t);
    expect((await admin.put(rec('k'), { value: 1, ifRevision: 0 })).statusCode).toBe(201);
    const again = await admin.put(rec('k'), { value: 2, ifRevision: 0 });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error.details.current_revision).toBe(1);
    const missing = await admin.put(rec('other'), { value: 2, ifRevision: 3 });
    expect(missing.statusCode, missing.body).toBe(409);
    expect(missing.json().error.details.current_revision).toBeNull();
  });

  it('two concurrent conditional writers with the same ifRevision: exactly one wins', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('race'), { value: 0 });
    for (let round = 1; round <= 5; round++) {
      const results = await Promise.all([admin.put(rec('race'), { value: `a${round}`, ifRevision: round }), admin.put(rec('race'), { value: `b${round}`, ifRevision: round })]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const winner = results.find((r) => r.statusCode === 200)!.json().data;
      expect(winner.revision).toBe(round + 1);
    }
    expect((await admin.get(rec('race'))).json().data.revision).toBe(6);
  });

  it('concurrent creates with ifRevision 0: exactly one wins and usage counts one key', async () => {
    const { admin, tenant } = await makeTenant(t);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => admin.put(rec('once'), { value: i, ifRevision: 0 })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await usage(tenant, 'app')).keys).toBe(1);
  });

  it('concurrent unconditional overwrites of one key (same size: no counter moves): every write counts, none reads a stale revision', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put(rec('hot'), { value: 'v0' });
    for (let round = 0; round < 4; round++) {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => admin.put(rec('hot'), { value: `v${i}` })));
      expect(results.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
      // Each write saw the one before it: six distinct revisions, one after another.
      const revisions = results.map((r) => r.json().data.revision as number).sort((a, b) => a - b);
      expect(revisions).toEqual(Array.from({ length: 6 }, (_, i) => 2 + round * 6 + i));
    }
    expect((await admin.get(rec('hot'))).json().data.revision).toBe(25);
    expect((await usage(tenant, 'app')).keys).toBe(1);
  });

  it('ttlSeconds sets an expiry; a write without it clears the expiry', async () => {
    const { admin } = await makeTenant(t);
    const before = Date.now();
    const res = await admin.put(rec('k'), { value: 1, ttlSeconds: 3600 });
    const exp = Date.parse(res.json().data.ttlExpiresAt);
    expect(exp).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(exp).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
    expect((await admin.put(rec('k'), { value: 2 })).json().data.ttlExpiresAt).toBeNull();
  });
});

describe('storage limits', () => {
  it('namespace: 64 characters pass, 65 fail; the pattern is enforced', async () => {
    const { admin } = await makeTenant(t);
    expect((await admin.put(rec('k', 'a'.repeat(64)), { value: 1 })).statusCode).toBe(201);
    expect((await admin.put(rec('k', 'a'.repeat(65)), { value: 1 })).statusCode).toBe(400);
    for (const bad of ['Upper', '-lead', '.lead', 'sp%20ace', 'ü']) {
      const res = await admin.put(rec('k', bad), { value: 1 });
      expect(res.statusCode, `${bad}: ${res.body}`).toBe(400);
    }
    expect((await admin.put(rec('k', 'a0._-z'), { value: 1 })).statusCode).toBe(201);
  });

  it('key: 256 characters pass, 257 fail', async () => {
    const { admin } = await makeTenant(t);
    expect((await admin.put(rec('k'.repeat(256)), { value: 1 })).statusCode).toBe(201);
    expect((await admin.put(rec('k'.repeat(257)), { value: 1 })).statusCode).toBe(400);
  });

  it('value: 64 KiB serialized passes, one byte more is a 413 naming the limit', async () => {
    const { admin } = await makeTenant(t);
    const at = 'x'.repeat(64 * 1024 - 2); // the quotes make 65,536 bytes
    expect((await admin.put(rec('k'), { value: at })).statusCode).toBe(201);
    const over = await admin.put(rec('k'), { value: `${at}x` });
    expect(over.statusCode, over.body).toBe(413);
    expect(over.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 65536 } });
    expect(over.json().error.message).toContain('64 KiB');
  });

  it('metadata: 4 KiB serialized passes, one byte more is a 413 naming the limit', async () => {
    const { admin } = await makeTenant(t);
    const at = { m: 'x'.repeat(4096 - 8) }; // {"m":""} is 8 bytes
    expect(JSON.stringify(at).length).toBe(4096);
    expect((await admin.put(rec('k'), { value: 1, metadata: at })).statusCode).toBe(201);
    const over = await admin.put(rec('k'), { value: 1, metadata: { m: `${at.m}x` } });
    expect(over.statusCode, over.body).toBe(413);
    expect(over.json().error.message).toContain('4 KiB');
  });

  it('ttlSeconds: 1 and 31,536,000 pass; 0 and 31,536,001 fail', async () => {
    const { admin } = await makeTenant(t);
    expect((await admin.put(rec('a'), { value: 1, ttlSeconds: 1 })).statusCode).toBe(201);
    expect((await admin.put(rec('b'), { value: 1, ttlSeconds: 31_536_000 })).statusCode).toBe(201);
    expect((await admin.put(rec('c'), { value: 1, ttlSeconds: 0 })).statusCode).toBe(400);
    expect((await admin.put(rec('d'), { value: 1, ttlSeconds: 31_536_001 })).statusCode).toBe(400);
    expect((await admin.put(rec('e'), { value: 1, ttlSeconds: 1.5 })).statusCode).toBe(400);
  });

  it('bulk: 100 items pass, 101 fail', async () => {
    const { admin } = await makeTenant(t);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: i }));
    expect((await admin.post(base(), { items: items(100) })).statusCode).toBe(200);
    const over = await admin.post(base(), { items: items(101) });
    expect(over.statusCode, over.body).toBe(400);
    expect(over.body).toContain('100');
  });

  it('bulk: 1 MiB of keys, values and metadata passes, one byte more is a 413', async () => {
    const { admin } = await makeTenant(t);
    // 16 items: key 'kNN' (3 bytes) + a string value of 65,536 bytes serialized would be 1 MiB + 48: size values to hit 1 MiB exactly.
    const perItem = (1024 * 1024) / 16; // 65,536 bytes each: key (3) + quoted value
    const items = Array.from({ length: 16 }, (_, i) => ({ key: `k${String(i).padStart(2, '0')}`, value: 'x'.repeat(perItem - 3 - 2) }));
    const ok = await admin.post(base(), { items });
    expect(ok.statusCode, ok.body).toBe(200);
    items[0]!.value += 'x';
    const over = await admin.post(base('other'), { items });
    expect(over.statusCode, over.body).toBe(413);
    expect(over.json().error.message).toContain('1 MiB');
  });

  it('namespaces quota: the 100th namespace passes, the 101st is a 422 quota_exceeded', async () => {
    const { admin, tenant } = await makeTenant(t);
    expect((await admin.put(rec('k', 'ns-1'), { value: 1 })).statusCode).toBe(201);
    // Pretend 98 other namespaces exist: the counter is what the quota reads.
    await t.database.db.updateTable('storage_tenant_usage').set({ namespace_count: DEFAULT_STORAGE_LIMITS.maxNamespaces - 1 }).where('tenant', '=', tenant).execute();
    expect((await admin.put(rec('k', 'ns-100'), { value: 1 })).statusCode).toBe(201);
    expect((await admin.put(rec('k2', 'ns-100'), { value: 1 })).statusCode).toBe(201);
    const over = await admin.put(rec('k', 'ns-101'), { value: 1 });
    expect(over.statusCode, over.body).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'UNPROCESSABLE', details: { reason: 'quota_exceeded', limit: 100 } });
    expect(over.json().error.message).toContain('100 namespaces');
    expect((await admin.get(rec('k', 'ns-101'))).statusCode).toBe(404);
  });

  it('keys quota: the 100,000th key passes, the next is a 422; replacing an existing key still works', async () => {
    const { admin, tenant } = await makeTenant(t);
    expect((await admin.put(rec('first'), { value: 1 })).statusCode).toBe(201);
    await t.database.db.updateTable('storage_usage').set({ key_count: DEFAULT_STORAGE_LIMITS.maxKeysPerNamespace - 1 }).where('tenant', '=', tenant).execute();
    expect((await admin.put(rec('last'), { value: 1 })).statusCode).toBe(201);
    const over = await admin.put(rec('one-too-many'), { value: 1 });
    expect(over.statusCode, over.body).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'UNPROCESSABLE', details: { reason: 'quota_exceeded', limit: 100_000 } });
    expect((await admin.put(rec('first'), { value: 2 })).statusCode).toBe(200);
    expect((await admin.put(rec('k', 'elsewhere'), { value: 1 })).statusCode).toBe(201);
  });

  it('bytes quota: reaching 1 GiB exactly passes, one byte more is a 422', async () => {
    const { admin, tenant } = await makeTenant(t);
    const first = (await admin.put(rec('a'), { value: 'x' })).json().data;
    expect(first.revision).toBe(1);
    const size = (await recount(tenant)).bytes; // key 'a' + '"x"' = 4 bytes
    expect(size).toBe(4);
    // Pretend the tenant already holds everything but one more such record.
    await t.database.db.updateTable('storage_tenant_usage').set({ bytes: DEFAULT_STORAGE_LIMITS.maxTotalBytes - size }).where('tenant', '=', tenant).execute();
    expect((await admin.put(rec('b'), { value: 'x' })).statusCode).toBe(201);
    const over = await admin.put(rec('c'), { value: 'x' });
    expect(over.statusCode, over.body).toBe(422);
    expect(over.json().error.details).toMatchObject({ reason: 'quota_exceeded', limit: 1024 ** 3 });
    // Shrinking a record is always allowed at the limit.
    expect((await admin.put(rec('b'), { value: 1 })).statusCode).toBe(200);
  });

  it('a quota failure in a bulk write writes nothing', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put(rec('seed'), { value: 1 });
    await t.database.db.updateTable('storage_usage').set({ key_count: DEFAULT_STORAGE_LIMITS.maxKeysPerNamespace - 1 }).where('tenant', '=', tenant).execute();
    const res = await admin.post(base(), { items: [{ key: 'x1', value: 1 }, { key: 'x2', value: 2 }] });
    expect(res.statusCode, res.body).toBe(422);
    expect((await admin.get(rec('x1'))).statusCode).toBe(404);
  });
});

describe('POST /api/v1/storage/namespaces/{namespace}/records', () => {
  it('writes all items in one transaction and returns them in request order', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put(rec('b'), { value: 'old' });
    const res = await admin.post(base(), { items: [{ key: 'c', value: 3, metadata: { m: 1 } }, { key: 'b', value: 2, ifRevision: 1 }, { key: 'a', value: 1, ttlSeconds: 60 }] });
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().data.items;
    expect(items.map((i: { key: string }) => i.key)).toEqual(['c', 'b', 'a']);
    expect(items.map((i: { revision: number }) => i.revision)).toEqual([1, 2, 1]);
    expect(items[0]).toMatchObject({ namespace: 'app', value: 3, metadata: { m: 1 }, ttlExpiresAt: null });
    expect(items[2].ttlExpiresAt).not.toBeNull();
    const u = await usage(tenant, 'app');
    const actual = await recount(tenant);
    expect(u).toEqual({ keys: 3, bytes: actual.bytes, namespaces: 1, totalBytes: actual.bytes });
  });

  it('one revision mismatch fails the whole call with per-item detail and writes nothing', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('a'), { value: 1 });
    await admin.put(rec('b'), { value: 1 });
    const res = await admin.post(base(), { items: [{ key: 'a', value: 2, ifRevision: 1 }, { key: 'b', value: 2, ifRevision: 7 }, { key: 'c', value: 2, ifRevision: 0 }, { key: 'd', value: 2, ifRevision: 2 }] });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error.code).toBe('REVISION_MISMATCH');
    expect(res.json().error.details.items).toEqual([
      { key: 'b', expected_revision: 7, current_revision: 1 },
      { key: 'd', expected_revision: 2, current_revision: null },
    ]);
    expect((await admin.get(rec('a'))).json().data).toMatchObject({ value: 1, revision: 1 });
    expect((await admin.get(rec('c'))).statusCode).toBe(404);
  });

  it('rejects duplicate keys, an empty list and unknown fields with 400', async () => {
    const { admin } = await makeTenant(t);
    const dup = await admin.post(base(), { items: [{ key: 'a', value: 1 }, { key: 'a', value: 2 }] });
    expect(dup.statusCode, dup.body).toBe(400);
    expect(dup.json().error.message).toContain("'a'");
    expect((await admin.post(base(), { items: [] })).statusCode).toBe(400);
    expect((await admin.post(base(), { items: [{ key: 'a', value: 1, revision: 2 }] })).statusCode).toBe(400);
    expect((await admin.post(base(), { items: [{ key: 'a/b', value: 1 }] })).statusCode).toBe(400);
    expect((await admin.post(base(), { items: [{ key: 'a' }] })).statusCode).toBe(400);
    expect((await admin.post(base(), { items: [{ key: 'nul\u0000key', value: 1 }] })).statusCode).toBe(400);
  });

  it('a bulk value over 64 KiB is a 413 naming the item', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post(base(), { items: [{ key: 'a', value: 1 }, { key: 'big', value: 'x'.repeat(70_000) }] });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().error.message).toContain('items/1/value');
  });
});

describe('GET /api/v1/storage/namespaces/{namespace}/records/{key}', () => {
  it('returns the record with an ETag', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('k'), { value: { a: 1 }, metadata: { b: 2 } });
    const res = await admin.get(rec('k'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ namespace: 'app', key: 'k', value: { a: 1 }, metadata: { b: 2 }, revision: 1 });
    expect(res.headers.etag).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('404s a missing key, and another tenant\'s key', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    await a.admin.put(rec('secret'), { value: 1 });
    expect((await a.admin.get(rec('nope'))).statusCode).toBe(404);
    const other = await b.admin.get(rec('secret'));
    expect(other.statusCode, other.body).toBe(404);
    expect(other.json().error.code).toBe('NOT_FOUND');
  });
});

describe('DELETE /api/v1/storage/namespaces/{namespace}/records/{key}', () => {
  it('deletes with 204 and takes the record off the usage counters', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put(rec('a'), { value: 1 });
    await admin.put(rec('b', 'two'), { value: 1 });
    const res = await admin.delete(rec('a'));
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect((await admin.get(rec('a'))).statusCode).toBe(404);
    expect(await usage(tenant, 'app')).toEqual({ keys: 0, bytes: 0, namespaces: 1, totalBytes: (await recount(tenant)).bytes });
    expect((await admin.delete(rec('a'))).statusCode).toBe(404);
  });

  it('honours ifRevision in the query', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('a'), { value: 1 });
    await admin.put(rec('a'), { value: 2 });
    const stale = await admin.delete(`${rec('a')}?ifRevision=1`);
    expect(stale.statusCode, stale.body).toBe(409);
    expect(stale.json().error).toMatchObject({ code: 'REVISION_MISMATCH', details: { current_revision: 2 } });
    expect((await admin.delete(`${rec('a')}?ifRevision=2`)).statusCode).toBe(204);
    expect((await admin.delete(`${rec('a')}?ifRevision=abc`)).statusCode).toBe(400);
  });

  it('another tenant cannot delete the record', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    await a.admin.put(rec('k'), { value: 1 });
    expect((await b.admin.delete(rec('k'))).statusCode).toBe(404);
    expect((await a.admin.get(rec('k'))).statusCode).toBe(200);
  });
});

describe('GET /api/v1/storage/namespaces/{namespace}/records', () => {
  async function seed(api: Api, keys: string[], ns = 'app') {
    for (let i = 0; i < keys.length; i += 100) {
      const res = await api.post(base(ns), { items: keys.slice(i, i + 100).map((key) => ({ key, value: key, metadata: { k: key } })) });
      expect(res.statusCode, res.body).toBe(200);
    }
  }

  async function walk(api: Api, query: string, ns = 'app') {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.get(`${base(ns)}?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      seen.push(...data.items.map((i: { key: string }) => i.key));
      cursor = data.nextCursor;
      pages++;
    } while (cursor !== null);
    return { seen, pages };
  }

  it('pages over 1,000 keys in pages of 7, with and without a prefix, returning every key exactly once in byte order', async () => {
    const { admin } = await makeTenant(t);
    const keys = Array.from({ length: 1000 }, (_, i) => `${['alpha', 'beta', 'Zed', 'al_x', 'al%y'][i % 5]}-${String(i).padStart(4, '0')}`);
    await seed(admin, keys);
    const byteOrder = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const all = await walk(admin, 'limit=7');
    expect(all.seen).toEqual(byteOrder);
    expect(all.pages).toBe(Math.ceil(1000 / 7));
    const alpha = await walk(admin, 'limit=7&keyPrefix=alpha');
    expect(alpha.seen).toEqual(byteOrder.filter((k) => k.startsWith('alpha')));
    expect(alpha.seen).toHaveLength(200);
    // LIKE wildcards in the prefix are literal.
    const underscore = await walk(admin, 'limit=7&keyPrefix=al_');
    expect(underscore.seen).toEqual(byteOrder.filter((k) => k.startsWith('al_')));
    const percent = await walk(admin, `limit=7&keyPrefix=${encodeURIComponent('al%')}`);
    expect(percent.seen).toEqual(byteOrder.filter((k) => k.startsWith('al%')));
  });

  it('defaults to 25 per page; limit 1 and 100 pass, 0 and 101 fail', async () => {
    const { admin } = await makeTenant(t);
    await seed(admin, Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}`));
    const first = (await admin.get(base())).json().data;
    expect(first.items).toHaveLength(25);
    expect(typeof first.nextCursor).toBe('string');
    expect((await admin.get(`${base()}?limit=1`)).json().data.items).toHaveLength(1);
    const hundred = (await admin.get(`${base()}?limit=100`)).json().data;
    expect(hundred.items).toHaveLength(30);
    expect(hundred.nextCursor).toBeNull();
    expect((await admin.get(`${base()}?limit=0`)).statusCode).toBe(400);
    expect((await admin.get(`${base()}?limit=101`)).statusCode).toBe(400);
  });

  it('includeValues=false and includeMetadata=false leave those fields out; true keeps them', async () => {
    const { admin } = await makeTenant(t);
    await seed(admin, ['a']);
    const without = (await admin.get(`${base()}?includeValues=false&includeMetadata=false`)).json().data.items[0];
    expect(without).not.toHaveProperty('value');
    expect(without).not.toHaveProperty('metadata');
    expect(without).toMatchObject({ key: 'a', revision: 1 });
    const withBoth = (await admin.get(`${base()}?includeValues=true&includeMetadata=true`)).json().data.items[0];
    expect(withBoth).toMatchObject({ value: 'a', metadata: { k: 'a' } });
    const defaults = (await admin.get(base())).json().data.items[0];
    expect(defaults).toMatchObject({ value: 'a', metadata: { k: 'a' } });
    expect((await admin.get(`${base()}?includeValues=nope`)).statusCode).toBe(400);
    expect((await admin.get(`${base()}?keyPrefix=%00`)).statusCode).toBe(400);
  });

  it('an invalid cursor is a 400 BAD_REQUEST', async () => {
    const { admin } = await makeTenant(t);
    for (const cursor of ['!!!', 'bm90LWpzb24', Buffer.from('{"x":1}').toString('base64url'), Buffer.from('{"k":""}').toString('base64url')]) {
      const res = await admin.get(`${base()}?cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.code).toBe('BAD_REQUEST');
    }
  });

  it("another tenant's namespace lists as empty", async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    await seed(a.admin, ['x', 'y']);
    const res = await b.admin.get(base());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ items: [], nextCursor: null });
  });
});

describe('storage authentication and permissions', () => {
  it('401s without a key or with a bad key on every route', async () => {
    const anon = apiFor(t, 'psa_invalid');
    for (const res of [
      await t.app.inject({ method: 'GET', url: base() }),
      await anon.get(rec('k')),
      await anon.put(rec('k'), { value: 1 }),
      await anon.post(base(), { items: [{ key: 'k', value: 1 }] }),
      await anon.delete(rec('k')),
    ]) expect(res.statusCode, res.body).toBe(401);
  });

  it('a Viewer reads but cannot write (403 naming storage:write); a Manager reads and writes', async () => {
    const { admin, tenant } = await makeTenant(t);
    await admin.put(rec('k'), { value: 1 });
    const viewer = (await makeUser(t, tenant, { role: 'Viewer' })).api;
    expect((await viewer.get(rec('k'))).statusCode).toBe(200);
    expect((await viewer.get(base())).statusCode).toBe(200);
    for (const res of [await viewer.put(rec('k'), { value: 2 }), await viewer.post(base(), { items: [{ key: 'k', value: 1 }] }), await viewer.delete(rec('k'))]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error.details.required).toEqual(['storage:write']);
    }
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.put(rec('k'), { value: 2 })).statusCode).toBe(200);
    expect((await manager.delete(rec('k'))).statusCode).toBe(204);
  });

  it('a user without storage permissions gets 403 on reads', async () => {
    const { tenant } = await makeTenant(t);
    const tech = (await makeUser(t, tenant, { role: 'Technician' })).api;
    const res = await tech.get(base());
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().error.details.required).toEqual(['storage:read']);
    expect((await tech.get(rec('k'))).statusCode).toBe(403);
  });

  it('a key scoped to storage:read cannot write', async () => {
    const { tenant } = await makeTenant(t);
    const scoped = (await makeUser(t, tenant, { role: 'Admin', scopes: ['storage:read'] })).api;
    expect((await scoped.get(base())).statusCode).toBe(200);
    expect((await scoped.put(rec('k'), { value: 1 })).statusCode).toBe(403);
  });
});

describe('storage keys at the edges of the router', () => {
  it('accepts a 256-character key of multi-byte characters (percent-encoded far beyond 256 bytes)', async () => {
    const { admin } = await makeTenant(t);
    const key = 'ü'.repeat(256);
    const res = await admin.put(rec(key), { value: 1 });
    expect(res.statusCode, res.body).toBe(201);
    expect((await admin.get(rec(key))).json().data.key).toBe(key);
  });
});

describe('If-Match on storage writes', () => {
  it('a stale If-Match is a 412 on PUT and DELETE; the current ETag passes', async () => {
    const { admin } = await makeTenant(t);
    await admin.put(rec('k'), { value: 1 });
    const etag = (await admin.get(rec('k'))).headers.etag as string;
    expect((await admin.put(rec('k'), { value: 2 }, { 'if-match': etag })).statusCode).toBe(200);
    const stalePut = await admin.put(rec('k'), { value: 3 }, { 'if-match': etag });
    expect(stalePut.statusCode, stalePut.body).toBe(412);
    expect((await admin.delete(rec('k'), { 'if-match': etag })).statusCode).toBe(412);
    const fresh = (await admin.get(rec('k'))).headers.etag as string;
    expect((await admin.delete(rec('k'), { 'if-match': fresh })).statusCode).toBe(204);
  });
});
