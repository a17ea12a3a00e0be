import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { PREPARE_MARK, prepareIf, preparedQuery } from '../../platform/db/prepared.ts';
import type { StorageRecordRow } from './storage.mapper.ts';

/** Live = not expired at `now`. Every read and write goes through this, so expiry is immediate. */
const live = (now: Date) => sql<boolean>`(ttl_expires_at is null or ttl_expires_at > ${now})`;

export async function findLiveRecord(db: Executor, tenant: string, namespace: string, key: string, now: Date): Promise<StorageRecordRow | undefined> {
  return db
    .selectFrom('storage_records')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('namespace', '=', namespace)
    .where('key', '=', key)
    .where(live(now))
    .executeTakeFirst();
}

/** The stored rows (expired ones included) for these keys, locked until the transaction ends. */
export async function lockRecords(db: Executor, tenant: string, namespace: string, keys: readonly string[]): Promise<StorageRecordRow[]> {
  if (keys.length === 0) return [];
  return db
    .selectFrom('storage_records')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('namespace', '=', namespace)
    .where('key', 'in', keys)
    .forUpdate()
    .execute();
}

export interface RecordWrite {
  key: string;
  value: string;
  metadata: string | null;
  revision: number;
  size_bytes: number;
  ttl_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function deleteRecord(db: Executor, tenant: string, namespace: string, key: string): Promise<void> {
  await db.deleteFrom('storage_records').where('tenant', '=', tenant).where('namespace', '=', namespace).where('key', '=', key).execute();
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listLiveRecords(
  db: Executor,
  tenant: string,
  namespace: string,
  opts: { after?: string; prefix?: string; limit: number; now: Date },
): Promise<StorageRecordRow[]> {
  let q = db
    .selectFrom('storage_records')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('namespace', '=', namespace)
    .where(live(opts.now));
  if (opts.after !== undefined) q = q.where('key', '>', opts.after);
  if (opts.prefix !== undefined) q = q.where('key', 'like', `${escapeLike(opts.prefix)}%`);
  return q.orderBy('key').limit(opts.limit).execute();
}

/**
 * Locks the tenant's usage row, creating it on the tenant's first write: every write of a tenant serializes
 * here, so the counters stay exact and everything read after it (in new statements) is current. A plain row
 * lock leaves no new row version behind; only the first write of a tenant pays for the insert.
 */
export async function lockTenantUsage(db: Executor, tenant: string): Promise<{ namespace_count: number; bytes: number }> {
  for (;;) {
    const [row] = await lockTenantUsageRow(db, { tenant });
    if (row) return { namespace_count: row.namespace_count, bytes: Number(row.bytes) };
    await createTenantUsage(db, tenant);
  }
}

/** The tenant's usage row, on its first write (a concurrent first write may have made it: then nothing). */
async function createTenantUsage(db: Executor, tenant: string): Promise<void> {
  await db.insertInto('storage_tenant_usage').values({ tenant }).onConflict((oc) => oc.column('tenant').doNothing()).execute();
}

const lockTenantUsageRow = preparedQuery(['tenant'], (db, v) =>
  db.selectFrom('storage_tenant_usage').select(['namespace_count', 'bytes']).where('tenant', '=', v.tenant).forUpdate());

/** The namespace's usage and a stored row (all null when the key has none), as both reads below select them. */
type UsageAndRecord = { [K in keyof StorageRecordRow]: StorageRecordRow[K] | null } & { ns_key_count: number | null; ns_bytes: string | number | null };
const USAGE_AND_RECORD = sql`u.key_count as ns_key_count, u.bytes as ns_bytes,
  r.namespace, r.key, r.value, r.metadata, r.revision, r.size_bytes, r.ttl_expires_at, r.created_at, r.updated_at`;

/** The joins' rows as the namespace's usage and the stored records (one row per record, or one with none). */
function usageAndRecords(tenant: string, rows: readonly UsageAndRecord[]): { usage: { key_count: number; bytes: number }; stored: StorageRecordRow[] } {
  const first = rows[0];
  const usage = { key_count: first?.ns_key_count ?? 0, bytes: Number(first?.ns_bytes ?? 0) };
  const stored = rows.filter((r) => r.key !== null).map((r) => ({
    tenant, namespace: r.namespace!, key: r.key!, value: r.value!, metadata: r.metadata, revision: r.revision!, size_bytes: r.size_bytes!,
    ttl_expires_at: r.ttl_expires_at, created_at: r.created_at!, updated_at: r.updated_at!,
  }));
  return { usage, stored };
}

/**
 * What a write of `keys` needs to know, in one round trip: the namespace's usage and the stored rows
 * (expired ones included). Only valid under the tenant's usage lock: no other writer of the tenant can
 * change either until this transaction ends, so plain reads are as good as locked ones. The keys are a
 * literal list: with `= any(array)` a generic plan scanned the whole namespace and filtered (no statistics
 * yet). A single key (every automation action, every PUT) runs prepared.
 */
async function readForWrite(db: Executor, tenant: string, namespace: string, keys: readonly string[]) {
  const { rows } = await sql<UsageAndRecord>`
    select ${USAGE_AND_RECORD}
    from (select 1) as one
    left join storage_usage u on u.tenant = ${tenant} and u.namespace = ${namespace}
    left join storage_records r on r.tenant = ${tenant} and r.namespace = ${namespace} and r.key in (${sql.join(keys)})${prepareIf(keys.length === 1)}`.execute(db);
  return usageAndRecords(tenant, rows);
}

/**
 * lockTenantUsage and readForWrite in one round trip. The catch: a statement reads with the snapshot it
 * started with, so if another writer committed while this one waited for the lock, the namespace usage
 * and rows it read are stale. Every write moves the tenant row to a new version (writeRecords,
 * applyUsage), so that case shows as the locked version differing from the one the statement saw; then
 * the reads run again, now under the lock.
 */
export async function lockForWrite(
  db: Executor,
  tenant: string,
  namespace: string,
  keys: readonly string[],
): Promise<{ tenantUsage: { namespace_count: number; bytes: number }; usage: { key_count: number; bytes: number }; stored: StorageRecordRow[] }> {
  for (;;) {
    const { rows } = await sql<UsageAndRecord & { namespace_count: number; tenant_bytes: string | number; locked_version: string; seen_version: string | null }>`
      select t.namespace_count, t.bytes as tenant_bytes, t.xmin::text as locked_version,
        (select s.xmin::text from storage_tenant_usage s where s.tenant = t.tenant) as seen_version,
        ${USAGE_AND_RECORD}
      from storage_tenant_usage t
      left join storage_usage u on u.tenant = t.tenant and u.namespace = ${namespace}
      left join storage_records r on r.tenant = t.tenant and r.namespace = ${namespace} and r.key in (${sql.join(keys)})
      where t.tenant = ${tenant}
      for update of t${prepareIf(keys.length === 1)}`.execute(db);
    const first = rows[0];
    if (!first) {
      await createTenantUsage(db, tenant);
      continue;
    }
    const tenantUsage = { namespace_count: first.namespace_count, bytes: Number(first.tenant_bytes) };
    const stale = first.locked_version !== first.seen_version;
    return { tenantUsage, ...(stale ? await readForWrite(db, tenant, namespace, keys) : usageAndRecords(tenant, rows)) };
  }
}

/**
 * Writes the records and the usage counters in one statement (the caller computed revisions and counters
 * under the tenant's lock). The namespace's counters are rewritten only when they moved; the tenant's
 * row always is, even unchanged: its new version is what tells lockForWrite that a writer came between.
 */
export async function writeRecords(
  db: Executor,
  tenant: string,
  namespace: string,
  rows: readonly RecordWrite[],
  usage: { namespace?: { key_count: number; bytes: number }; tenant: { namespace_count: number; bytes: number } },
): Promise<StorageRecordRow[]> {
  const col = <K extends keyof RecordWrite>(k: K) => rows.map((r) => r[k]);
  const at = (k: 'ttl_expires_at' | 'created_at' | 'updated_at') => rows.map((r) => r[k]?.toISOString() ?? null);
  const ns = usage.namespace;
  const total = usage.tenant;
  const { rows: written } = await sql<StorageRecordRow>`
    with written as (
      insert into storage_records (tenant, namespace, key, value, metadata, revision, size_bytes, ttl_expires_at, created_at, updated_at)
      select ${tenant}::uuid, ${namespace}, w.* from unnest(${col('key')}::text[], ${col('value')}::text[], ${col('metadata')}::text[],
        ${col('revision')}::int[], ${col('size_bytes')}::int[], ${at('ttl_expires_at')}::timestamptz[], ${at('created_at')}::timestamptz[], ${at('updated_at')}::timestamptz[]) as w
      on conflict (tenant, namespace, key) do update set value = excluded.value, metadata = excluded.metadata, revision = excluded.revision,
        size_bytes = excluded.size_bytes, ttl_expires_at = excluded.ttl_expires_at, created_at = excluded.created_at, updated_at = excluded.updated_at
      returning *
    )${ns ? sql`, namespace_usage as (
      insert into storage_usage (tenant, namespace, key_count, bytes) values (${tenant}, ${namespace}, ${ns.key_count}, ${ns.bytes})
      on conflict (tenant, namespace) do update set key_count = excluded.key_count, bytes = excluded.bytes
    )` : sql``}, tenant_usage as (
      update storage_tenant_usage set namespace_count = ${total.namespace_count}, bytes = ${total.bytes} where tenant = ${tenant}
    )
    select tenant, namespace, key, value, metadata, revision, size_bytes, ttl_expires_at, created_at, updated_at from written${sql.raw(PREPARE_MARK)}`.execute(db);
  return written;
}

export async function findNamespaceUsage(db: Executor, tenant: string, namespace: string): Promise<{ key_count: number; bytes: number } | undefined> {
  const row = await db.selectFrom('storage_usage').select(['key_count', 'bytes']).where('tenant', '=', tenant).where('namespace', '=', namespace).forUpdate().executeTakeFirst();
  return row && { key_count: row.key_count, bytes: Number(row.bytes) };
}

/** Applies a namespace delta; a namespace whose last key goes is dropped (it no longer counts). */
export async function applyUsage(
  db: Executor,
  tenant: string,
  namespace: string,
  next: { key_count: number; bytes: number },
  tenantNext: { namespace_count: number; bytes: number },
): Promise<void> {
  if (next.key_count <= 0) {
    await db.deleteFrom('storage_usage').where('tenant', '=', tenant).where('namespace', '=', namespace).execute();
  } else {
    await db
      .insertInto('storage_usage')
      .values({ tenant, namespace, key_count: next.key_count, bytes: next.bytes })
      .onConflict((oc) => oc.columns(['tenant', 'namespace']).doUpdateSet({ key_count: next.key_count, bytes: next.bytes }))
      .execute();
  }
  await db.updateTable('storage_tenant_usage').set({ namespace_count: tenantNext.namespace_count, bytes: tenantNext.bytes }).where('tenant', '=', tenant).execute();
}
