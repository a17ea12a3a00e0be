import { sql, type Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { RunSchedule } from '../../platform/jobs/types.ts';
import { withTransaction, type Executor } from '../../platform/db/executor.ts';
import { applyUsage, findNamespaceUsage, lockTenantUsage } from './storage.repo.ts';

export interface PurgeOptions {
  /** Most records deleted per tenant transaction, and most tenants visited per call. */
  batchSize?: number;
  now?: Date;
}

/**
 * Deletes expired records in bounded batches and takes them off the usage counters. Candidates come
 * from the expiry index; each tenant is purged in its own transaction that locks the tenant's usage
 * row first (the same order writers use, so the two never deadlock). Returns how many records went.
 */
export async function purgeExpiredStorage(db: Kysely<DB>, opts: PurgeOptions = {}): Promise<number> {
  const batchSize = opts.batchSize ?? 500;
  const now = opts.now ?? new Date();
  const tenants = await db
    .selectFrom((eb) => eb
      .selectFrom('storage_records')
      .select('tenant')
      .where('ttl_expires_at', 'is not', null)
      .where('ttl_expires_at', '<=', now)
      .orderBy('ttl_expires_at')
      .limit(batchSize)
      .as('expired'))
    .select('tenant')
    .distinct()
    .execute();
  let purged = 0;
  for (const { tenant } of tenants) {
    purged += await withTransaction(db, (trx) => purgeTenantExpired(trx, tenant, now, batchSize));
  }
  return purged;
}

/**
 * Deletes up to `limit` of one tenant's expired records and takes them off the counters. The caller's
 * transaction must be able to lock the tenant's usage row first (writers hold it already). Records of
 * `except` (a write about to replace them) are left alone.
 */
export async function purgeTenantExpired(
  trx: Executor,
  tenant: string,
  now: Date,
  limit: number,
  except?: { namespace: string; keys: readonly string[] },
): Promise<number> {
  const tenantUsage = await lockTenantUsage(trx, tenant);
  const exclude = except && except.keys.length > 0
    ? sql`and not (namespace = ${except.namespace} and key in (${sql.join(except.keys)}))`
    : sql``;
  const { rows: deleted } = await sql<{ namespace: string; size_bytes: number }>`
    delete from storage_records
    where tenant = ${tenant} and (namespace, key) in (
      select namespace, key from storage_records
      where tenant = ${tenant} and ttl_expires_at is not null and ttl_expires_at <= ${now} ${exclude}
      order by ttl_expires_at
      limit ${limit}
    )
    returning namespace, size_bytes`.execute(trx);
  const perNamespace = new Map<string, { keys: number; bytes: number }>();
  for (const d of deleted) {
    const n = perNamespace.get(d.namespace) ?? { keys: 0, bytes: 0 };
    n.keys += 1;
    n.bytes += d.size_bytes;
    perNamespace.set(d.namespace, n);
  }
  let namespaceCount = tenantUsage.namespace_count;
  let tenantBytes = tenantUsage.bytes;
  for (const [namespace, gone] of perNamespace) {
    const usage = (await findNamespaceUsage(trx, tenant, namespace)) ?? { key_count: gone.keys, bytes: gone.bytes };
    const next = { key_count: usage.key_count - gone.keys, bytes: usage.bytes - gone.bytes };
    if (next.key_count <= 0) namespaceCount -= 1;
    tenantBytes -= gone.bytes;
    await applyUsage(trx, tenant, namespace, next, { namespace_count: namespaceCount, bytes: tenantBytes });
  }
  return deleted.length;
}

/** The worker's schedule for storage: purges expired records per `cron` (default every minute). */
export function storageMaintenance(db: Kysely<DB>, opts: { cron?: string; batchSize?: number } = {}): RunSchedule {
  return {
    name: 'storage-expiry',
    cron: opts.cron ?? '* * * * *',
    run: async () => {
      // Bounded per run: at most a few batches, the rest waits for the next turn.
      for (let i = 0; i < 10; i++) {
        if ((await purgeExpiredStorage(db, { batchSize: opts.batchSize ?? 500 })) === 0) return;
      }
    },
  };
}
