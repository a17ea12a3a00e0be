import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../platform/db/executor.ts';
import { AppError, notFound, unprocessable, validation } from '../../platform/http/errors.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { toListed, toRecord, type StorageRecordRow } from './storage.mapper.ts';
import { DEFAULT_STORAGE_LIMITS, type StorageLimits } from './storage.limits.ts';
import {
  applyUsage, deleteRecord, findLiveRecord, findNamespaceUsage, listLiveRecords, lockForWrite, lockRecords, lockTenantUsage, writeRecords, type RecordWrite,
} from './storage.repo.ts';
import { purgeTenantExpired } from './storage.maintenance.ts';
import type { BulkItem, ListedRecord, ListRecordsQuery, PutRecordBody, StorageRecord } from './storage.schemas.ts';

export interface StorageDeps {
  db: Kysely<DB>;
  limits?: Partial<StorageLimits>;
  /** The clock (tests inject one to exercise expiry). */
  now?: () => Date;
}

interface WriteItem {
  key: string;
  value: unknown;
  metadata?: unknown;
  ttlSeconds?: number;
  ifRevision?: number;
}

interface Prepared {
  item: WriteItem;
  value: string;
  metadata: string | null;
  size: number;
}

/** Most expired records a write purges in-line when it would otherwise fail a quota. */
const QUOTA_PURGE_LIMIT = 10_000;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const kib = (n: number) => (n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);
const isLive = (row: StorageRecordRow, now: Date) => row.ttl_expires_at === null || new Date(row.ttl_expires_at).getTime() > now.getTime();

function encodeCursor(key: string): string {
  return Buffer.from(JSON.stringify({ k: key }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const k = (parsed as { k?: unknown } | null)?.k;
    if (typeof k !== 'string' || k.length === 0 || k.length > 256 || Object.keys(parsed as object).length !== 1) throw new Error('bad shape');
    return k;
  } catch {
    throw new AppError('BAD_REQUEST', 'cursor is invalid; pass nextCursor from a previous page unchanged');
  }
}

function revisionMismatch(message: string, details: unknown): AppError {
  return new AppError('REVISION_MISMATCH', message, details);
}

function quota(limit: string, value: number, message: string): AppError {
  return unprocessable(message, { reason: 'quota_exceeded', quota: limit, limit: value });
}

export function createStorageService(deps: StorageDeps) {
  const { db } = deps;
  const limits: StorageLimits = { ...DEFAULT_STORAGE_LIMITS, ...deps.limits };
  const clock = deps.now ?? (() => new Date());

  /** Serializes and checks one item's sizes: value ≤ 64 KiB, metadata a JSON object ≤ 4 KiB. */
  function prepare(item: WriteItem, path: string): Prepared {
    const value = JSON.stringify(item.value);
    if (value === undefined) throw validation(`${path}value`, 'must be a JSON value');
    const valueBytes = bytes(value);
    if (valueBytes > limits.maxValueBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${path}value is ${valueBytes} bytes serialized; the limit is ${kib(limits.maxValueBytes)}`, { limit: limits.maxValueBytes, size: valueBytes, key: item.key });
    }
    let metadata: string | null = null;
    if (item.metadata !== undefined) {
      if (item.metadata === null || typeof item.metadata !== 'object' || Array.isArray(item.metadata)) {
        throw validation(`${path}metadata`, 'must be a JSON object');
      }
      metadata = JSON.stringify(item.metadata);
      const metadataBytes = bytes(metadata);
      if (metadataBytes > limits.maxMetadataBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `${path}metadata is ${metadataBytes} bytes serialized; the limit is ${kib(limits.maxMetadataBytes)}`, { limit: limits.maxMetadataBytes, size: metadataBytes, key: item.key });
      }
    }
    return { item, value, metadata, size: bytes(item.key) + valueBytes + (metadata === null ? 0 : bytes(metadata)) };
  }

  /**
   * Writes a batch in one transaction, in two round trips: lock the tenant's usage row (all writes of a
   * tenant serialize there, so counters stay exact) and read the namespace's usage and the stored rows, then —
   * once every ifRevision and quota passed — upsert the records and the counters in one statement.
   * Nothing is written unless everything passes.
   */
  async function write(trx: Executor, tenant: string, namespace: string, items: readonly Prepared[], now: Date, opts: { single: boolean; ifMatch?: string }) {
    const { ifMatch } = opts;
    const current = await lockForWrite(trx, tenant, namespace, items.map((p) => p.item.key));
    const stored = new Map(current.stored.map((r) => [r.key, r]));

    const mismatches: { key: string; expected_revision: number; current_revision: number | null }[] = [];
    for (const { item } of items) {
      const row = stored.get(item.key);
      const current = row && isLive(row, now) ? row.revision : null;
      if (item.ifRevision !== undefined && item.ifRevision !== (current ?? 0)) {
        mismatches.push({ key: item.key, expected_revision: item.ifRevision, current_revision: current });
      }
    }
    if (mismatches.length > 0) {
      if (opts.single) {
        const m = mismatches[0]!;
        throw revisionMismatch(
          m.current_revision === null ? `Record '${m.key}' does not exist (ifRevision ${m.expected_revision})` : `Record '${m.key}' is at revision ${m.current_revision}, not ${m.expected_revision}`,
          { key: m.key, expected_revision: m.expected_revision, current_revision: m.current_revision },
        );
      }
      throw revisionMismatch(`${mismatches.length} item(s) did not match their ifRevision; nothing was written`, { items: mismatches });
    }
    if (ifMatch !== undefined) {
      const row = stored.get(items[0]!.item.key);
      if (row && isLive(row, now)) assertIfMatch(ifMatch, toRecord(row));
    }

    let keyDelta = 0;
    let byteDelta = 0;
    const writes: RecordWrite[] = items.map(({ item, value, metadata, size }) => {
      const row = stored.get(item.key);
      const alive = row !== undefined && isLive(row, now);
      if (row === undefined) keyDelta += 1;
      byteDelta += size - (row?.size_bytes ?? 0);
      return {
        key: item.key,
        value,
        metadata,
        revision: alive ? row.revision + 1 : 1,
        size_bytes: size,
        ttl_expires_at: item.ttlSeconds === undefined ? null : new Date(now.getTime() + item.ttlSeconds * 1000),
        created_at: alive ? row.created_at : now,
        updated_at: now,
      };
    });

    const plan = (t: { namespace_count: number; bytes: number }, ns: { key_count: number; bytes: number }) => {
      const nextNs = { key_count: ns.key_count + keyDelta, bytes: ns.bytes + byteDelta };
      const opensNamespace = ns.key_count === 0 && nextNs.key_count > 0;
      const nextTenant = { namespace_count: t.namespace_count + (opensNamespace ? 1 : 0), bytes: t.bytes + byteDelta };
      let error: AppError | undefined;
      if (opensNamespace && nextTenant.namespace_count > limits.maxNamespaces) {
        error = quota('namespaces', limits.maxNamespaces, `Storage quota exceeded: at most ${limits.maxNamespaces} namespaces per tenant`);
      } else if (keyDelta > 0 && nextNs.key_count > limits.maxKeysPerNamespace) {
        error = quota('keys_per_namespace', limits.maxKeysPerNamespace, `Storage quota exceeded: at most ${limits.maxKeysPerNamespace} keys per namespace`);
      } else if (byteDelta > 0 && nextTenant.bytes > limits.maxTotalBytes) {
        error = quota('total_bytes', limits.maxTotalBytes, `Storage quota exceeded: at most ${limits.maxTotalBytes} bytes per tenant`);
      }
      return { nextNs, nextTenant, error };
    };
    let base = { tenant: current.tenantUsage, ns: current.usage };
    let next = plan(base.tenant, base.ns);
    if (next.error) {
      // Expired records still on disk must not count against the quota: purge the tenant's now (this
      // transaction already holds its usage lock), then decide again.
      const purged = await purgeTenantExpired(trx, tenant, now, QUOTA_PURGE_LIMIT, { namespace, keys: items.map((p) => p.item.key) });
      if (purged > 0) {
        base = { tenant: await lockTenantUsage(trx, tenant), ns: (await findNamespaceUsage(trx, tenant, namespace)) ?? { key_count: 0, bytes: 0 } };
        next = plan(base.tenant, base.ns);
      }
      if (next.error) throw next.error;
    }
    const { nextNs, nextTenant } = next;

    const rows = await writeRecords(trx, tenant, namespace, writes, {
      namespace: nextNs.key_count !== base.ns.key_count || nextNs.bytes !== base.ns.bytes ? nextNs : undefined,
      tenant: nextTenant,
    });
    const byKey = new Map(rows.map((r) => [r.key, r]));
    return items.map(({ item }) => ({ row: byKey.get(item.key)!, created: !(stored.has(item.key) && isLive(stored.get(item.key)!, now)) }));
  }

  /**
   * PUT …/records/{key} inside the caller's transaction (automation actions): the same size checks,
   * ifRevision / If-Match, quotas and usage counters as the REST call.
   */
  async function putInTrx(trx: Transaction<DB>, actor: Actor, namespace: string, key: string, body: PutRecordBody, ifMatch?: string): Promise<{ record: StorageRecord; created: boolean }> {
    const prepared = prepare({ key, ...body }, '');
    const now = clock();
    const [result] = await write(trx, actor.tenant, namespace, [prepared], now, { single: true, ifMatch });
    return { record: toRecord(result!.row), created: result!.created };
  }

  return {
    limits,

    async get(actor: Actor, namespace: string, key: string): Promise<StorageRecord> {
      const row = await findLiveRecord(db, actor.tenant, namespace, key, clock());
      if (!row) throw notFound('Record', key);
      return toRecord(row);
    },

    async list(actor: Actor, namespace: string, query: ListRecordsQuery): Promise<{ items: ListedRecord[]; nextCursor: string | null }> {
      const limit = query.limit ?? 25;
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const rows = await listLiveRecords(db, actor.tenant, namespace, { after, prefix: query.keyPrefix, limit: limit + 1, now: clock() });
      const page = rows.slice(0, limit);
      const opts = { values: query.includeValues !== false, metadata: query.includeMetadata !== false };
      return {
        items: page.map((r) => toListed(r, opts)),
        nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.key) : null,
      };
    },

    async put(actor: Actor, namespace: string, key: string, body: PutRecordBody, ifMatch?: string): Promise<{ record: StorageRecord; created: boolean }> {
      return withTransaction(db, (trx) => putInTrx(trx, actor, namespace, key, body, ifMatch));
    },

    putInTrx,

    async bulk(actor: Actor, namespace: string, items: readonly BulkItem[]): Promise<StorageRecord[]> {
      if (items.length > limits.maxBulkItems) throw validation('items', `at most ${limits.maxBulkItems} items per call`);
      const seen = new Set<string>();
      for (const [i, item] of items.entries()) {
        if (seen.has(item.key)) throw new AppError('BAD_REQUEST', `Duplicate key '${item.key}' in items; each key may appear once per call`, [{ path: `items/${i}/key`, message: 'duplicate key' }]);
        seen.add(item.key);
      }
      const prepared = items.map((item, i) => prepare(item, `items/${i}/`));
      const total = prepared.reduce((n, p) => n + p.size, 0);
      if (total > limits.maxBulkBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The items total ${total} bytes of keys, values and metadata; the limit per call is 1 MiB (${limits.maxBulkBytes} bytes)`, { limit: limits.maxBulkBytes, size: total });
      }
      const now = clock();
      const results = await withTransaction(db, (trx) => write(trx, actor.tenant, namespace, prepared, now, { single: false }));
      return results.map((r) => toRecord(r.row));
    },

    async remove(actor: Actor, namespace: string, key: string, ifRevision: number | undefined, ifMatch?: string): Promise<void> {
      const now = clock();
      await withTransaction(db, async (trx) => {
        const tenantUsage = await lockTenantUsage(trx, actor.tenant);
        const [row] = await lockRecords(trx, actor.tenant, namespace, [key]);
        const alive = row !== undefined && isLive(row, now);
        if (ifRevision !== undefined && ifRevision !== (alive ? row.revision : 0)) {
          throw revisionMismatch(alive ? `Record '${key}' is at revision ${row.revision}, not ${ifRevision}` : `Record '${key}' does not exist (ifRevision ${ifRevision})`, {
            key, expected_revision: ifRevision, current_revision: alive ? row.revision : null,
          });
        }
        if (!alive) throw notFound('Record', key);
        assertIfMatch(ifMatch, toRecord(row));
        const nsUsage = (await findNamespaceUsage(trx, actor.tenant, namespace)) ?? { key_count: 1, bytes: row.size_bytes };
        const nextNs = { key_count: nsUsage.key_count - 1, bytes: nsUsage.bytes - row.size_bytes };
        await deleteRecord(trx, actor.tenant, namespace, key);
        await applyUsage(trx, actor.tenant, namespace, nextNs, {
          namespace_count: tenantUsage.namespace_count - (nextNs.key_count <= 0 ? 1 : 0),
          bytes: tenantUsage.bytes - row.size_bytes,
        });
      });
    },
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
