import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
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

/** One statement for the whole batch; the caller computed revisions under the locks. */
export async function upsertRecords(db: Executor, tenant: string, namespace: string, rows: readonly RecordWrite[]): Promise<StorageRecordRow[]> {
  return db
    .insertInto('storage_records')
    .values(rows.map((r) => ({ tenant, namespace, ...r })))
    .onConflict((oc) =>
      oc.columns(['tenant', 'namespace', 'key']).doUpdateSet((eb) => ({
        value: eb.ref('excluded.value'),
        metadata: eb.ref('excluded.metadata'),
        revision: eb.ref('excluded.revision'),
        size_bytes: eb.ref('excluded.size_bytes'),
        ttl_expires_at: eb.ref('excluded.ttl_expires_at'),
        created_at: eb.ref('excluded.created_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .execute();
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

/** Creates the tenant's usage row if needed and locks it: every write of a tenant serializes here. */
export async function lockTenantUsage(db: Executor, tenant: string): Promise<{ namespace_count: number; bytes: number }> {
  // One round trip: an upsert that always updates takes the row lock whether or not the row existed.
  const row = await db
    .insertInto('storage_tenant_usage')
    .values({ tenant })
    .onConflict((oc) => oc.column('tenant').doUpdateSet((eb) => ({ tenant: eb.ref('excluded.tenant') })))
    .returning(['namespace_count', 'bytes'])
    .executeTakeFirstOrThrow();
  return { namespace_count: row.namespace_count, bytes: Number(row.bytes) };
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
