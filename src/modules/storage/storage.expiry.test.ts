import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import type { Actor } from '../../platform/auth/context.ts';
import { createStorageService } from './storage.service.ts';
import { purgeExpiredStorage, storageMaintenance } from './storage.maintenance.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

/** A service on the test database with a hand-driven clock. */
function clocked(start = Date.parse('2030-01-01T00:00:00.000Z')) {
  let now = start;
  const service = createStorageService({ db: t.database.db, now: () => new Date(now) });
  return { service, advance: (ms: number) => { now += ms; }, now: () => new Date(now) };
}

async function actorFor(): Promise<Actor> {
  const { tenant, slug, adminUserId } = await makeTenant(t);
  return { tenant, tenantSlug: slug, userId: adminUserId, apiKeyId: adminUserId, userType: 'internal', clientId: null, contactId: null, permissions: new Set(['storage:read', 'storage:write']), scopes: null };
}

async function counters(tenant: string) {
  const ns = await t.database.db.selectFrom('storage_usage').select(['namespace', 'key_count', 'bytes']).where('tenant', '=', tenant).orderBy('namespace').execute();
  const total = await t.database.db.selectFrom('storage_tenant_usage').select(['namespace_count', 'bytes']).where('tenant', '=', tenant).executeTakeFirst();
  return { namespaces: ns.map((n) => ({ namespace: n.namespace, keys: n.key_count, bytes: Number(n.bytes) })), namespaceCount: total?.namespace_count ?? 0, bytes: Number(total?.bytes ?? 0) };
}

async function recount(tenant: string) {
  const rows = await t.database.db.selectFrom('storage_records').select(['namespace', 'size_bytes']).where('tenant', '=', tenant).orderBy('namespace').execute();
  const by = new Map<string, { namespace: string; keys: number; bytes: number }>();
  for (const r of rows) {
    const n = by.get(r.namespace) ?? { namespace: r.namespace, keys: 0, bytes: 0 };
    n.keys++;
    n.bytes += r.size_bytes;
    by.set(r.namespace, n);
  }
  return { namespaces: [...by.values()], namespaceCount: by.size, bytes: rows.reduce((n, r) => n + r.size_bytes, 0) };
}

describe('storage expiry', () => {
  it('an expired record is invisible at once to get, list and delete', async () => {
    const actor = await actorFor();
    const { service, advance } = clocked();
    await service.put(actor, 'app', 'short', { value: 1, ttlSeconds: 10 });
    await service.put(actor, 'app', 'long', { value: 2 });
    advance(9_999);
    expect((await service.get(actor, 'app', 'short')).value).toBe(1);
    advance(1);
    await expect(service.get(actor, 'app', 'short')).rejects.toMatchObject({ statusCode: 404 });
    expect((await service.list(actor, 'app', {})).items.map((i) => i.key)).toEqual(['long']);
    await expect(service.remove(actor, 'app', 'short', undefined)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('a write to an expired key behaves as a create: revision 1, ifRevision 0 succeeds, the old revision mismatches', async () => {
    const actor = await actorFor();
    const { service, advance } = clocked();
    await service.put(actor, 'app', 'k', { value: 1, ttlSeconds: 5 });
    await service.put(actor, 'app', 'k', { value: 2, ttlSeconds: 5 });
    advance(5_000);
    await expect(service.put(actor, 'app', 'k', { value: 3, ifRevision: 2 })).rejects.toMatchObject({ code: 'REVISION_MISMATCH', details: { current_revision: null } });
    const { record, created } = await service.put(actor, 'app', 'k', { value: 3, ifRevision: 0 });
    expect(created).toBe(true);
    expect(record).toMatchObject({ value: 3, revision: 1, ttlExpiresAt: null, createdAt: '2030-01-01T00:00:05.000Z' });
    expect(await counters(actor.tenant)).toEqual(await recount(actor.tenant));
  });

  it('a bulk write over an expired key restarts its revision', async () => {
    const actor = await actorFor();
    const { service, advance } = clocked();
    await service.bulk(actor, 'app', [{ key: 'a', value: 1, ttlSeconds: 1 }, { key: 'b', value: 1 }]);
    advance(1_000);
    const items = await service.bulk(actor, 'app', [{ key: 'a', value: 2, ifRevision: 0 }, { key: 'b', value: 2, ifRevision: 1 }]);
    expect(items.map((i) => i.revision)).toEqual([1, 2]);
  });

  it('the ttl is computed from the injected clock', async () => {
    const actor = await actorFor();
    const { service } = clocked();
    const { record } = await service.put(actor, 'app', 'k', { value: 1, ttlSeconds: 31_536_000 });
    expect(record.ttlExpiresAt).toBe('2031-01-01T00:00:00.000Z');
  });
});

describe('expired records and quotas', () => {
  it('expired records do not count against the key, namespace or byte quotas', async () => {
    const actor = await actorFor();
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const service = createStorageService({ db: t.database.db, now: () => new Date(now), limits: { maxKeysPerNamespace: 2, maxNamespaces: 2, maxTotalBytes: 1000 } });
    await service.bulk(actor, 'one', [{ key: 'a', value: 1, ttlSeconds: 10 }, { key: 'b', value: 1 }]);
    await service.put(actor, 'two', 'a', { value: 1, ttlSeconds: 10 });
    await expect(service.put(actor, 'one', 'c', { value: 1 })).rejects.toMatchObject({ statusCode: 422, details: { reason: 'quota_exceeded', limit: 2 } });
    await expect(service.put(actor, 'three', 'a', { value: 1 })).rejects.toMatchObject({ statusCode: 422, details: { reason: 'quota_exceeded', quota: 'namespaces' } });
    now += 10_000;
    expect((await service.put(actor, 'one', 'c', { value: 1 })).created).toBe(true);
    expect((await service.put(actor, 'three', 'a', { value: 1 })).created).toBe(true);
    await expect(service.put(actor, 'three', 'big', { value: 'x'.repeat(1000) })).rejects.toMatchObject({ statusCode: 422, details: { quota: 'total_bytes', limit: 1000 } });
    expect(await counters(actor.tenant)).toEqual(await recount(actor.tenant));
    expect((await counters(actor.tenant)).namespaceCount).toBe(2);
  });
});

describe('purgeExpiredStorage', () => {
  it('deletes only expired records, in bounded batches, and keeps the usage counters exact', async () => {
    const actor = await actorFor();
    const other = await actorFor();
    const { service, advance, now } = clocked();
    await service.bulk(actor, 'one', Array.from({ length: 25 }, (_, i) => ({ key: `e${i}`, value: i, ttlSeconds: 60 })));
    await service.bulk(actor, 'one', [{ key: 'keep', value: 'x' }, { key: 'later', value: 'y', ttlSeconds: 3600 }]);
    await service.bulk(actor, 'two', Array.from({ length: 5 }, (_, i) => ({ key: `e${i}`, value: i, ttlSeconds: 60 })));
    await service.put(other, 'one', 'e0', { value: 0, ttlSeconds: 60 });
    advance(60_000);

    const before = await t.database.db.selectFrom('storage_records').select('key').where('tenant', 'in', [actor.tenant, other.tenant]).execute();
    expect(before).toHaveLength(33);
    const first = await purgeExpiredStorage(t.database.db, { batchSize: 10, now: now() });
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(20); // at most batchSize per tenant, and at most batchSize candidates
    let total = first;
    for (let n = first; n > 0; total += n) n = await purgeExpiredStorage(t.database.db, { batchSize: 10, now: now() });
    expect(total).toBeGreaterThanOrEqual(31); // other tests' expired records in this database go too

    const left = await t.database.db.selectFrom('storage_records').select(['tenant', 'namespace', 'key']).where('tenant', 'in', [actor.tenant, other.tenant]).orderBy('key').execute();
    expect(left.map((r) => r.key)).toEqual(['keep', 'later']);
    expect(await counters(actor.tenant)).toEqual(await recount(actor.tenant));
    expect((await counters(actor.tenant)).namespaceCount).toBe(1);
    expect(await counters(other.tenant)).toEqual({ namespaces: [], namespaceCount: 0, bytes: 0 });
  });

  it('leaves records that are not yet expired', async () => {
    const actor = await actorFor();
    const { service, now } = clocked();
    await service.put(actor, 'app', 'k', { value: 1, ttlSeconds: 1 });
    expect(await purgeExpiredStorage(t.database.db, { batchSize: 100, now: now() })).toBe(0);
    expect((await service.get(actor, 'app', 'k')).value).toBe(1);
  });

  it('storageMaintenance is a periodic task that runs the purge', async () => {
    const actor = await actorFor();
    const { service } = clocked(Date.now() - 120_000);
    await service.put(actor, 'app', 'old', { value: 1, ttlSeconds: 60 });
    const task = storageMaintenance(t.database.db, { batchSize: 50 });
    expect(task).toMatchObject({ name: 'storage-expiry', cron: '* * * * *' });
    await task.run();
    const rows = await t.database.db.selectFrom('storage_records').select('key').where('tenant', '=', actor.tenant).execute();
    expect(rows).toEqual([]);
    expect(await counters(actor.tenant)).toEqual({ namespaces: [], namespaceCount: 0, bytes: 0 });
  });
});

describe('usage counters under concurrent writers', () => {
  it('stay equal to a full recount after many concurrent creates, replaces and deletes', async () => {
    const actor = await actorFor();
    const service = createStorageService({ db: t.database.db });
    const ops = Array.from({ length: 60 }, (_, i) => {
      const key = `k${i % 12}`;
      const ns = i % 3 === 0 ? 'a' : 'b';
      if (i % 5 === 4) return service.remove(actor, ns, key, undefined).catch(() => undefined);
      if (i % 7 === 0) return service.bulk(actor, ns, [{ key, value: 'x'.repeat(i) }, { key: `${key}-2`, value: i }]);
      return service.put(actor, ns, key, { value: 'y'.repeat(i * 3), metadata: { i } });
    });
    await Promise.all(ops);
    expect(await counters(actor.tenant)).toEqual(await recount(actor.tenant));
  });
});
