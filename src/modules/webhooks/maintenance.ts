import { sql, type Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { RunSchedule } from '../../platform/jobs/types.ts';

/** Delivery history is kept this long. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60_000;

/**
 * Deletes up to `batchSize` delivery rows created before the retention window, never a pending one
 * (an attempt still to be sent). Each webhook's old rows are found through its own history index
 * (tenant, webhook_id, created_at), so no index needs to lead with the time. Returns how many went.
 */
export async function purgeOldDeliveries(db: Kysely<DB>, opts: { now?: Date; batchSize?: number } = {}): Promise<number> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - DELIVERY_RETENTION_MS);
  const limit = opts.batchSize ?? 1000;
  const { numAffectedRows } = await sql`
    delete from webhook_deliveries d
    using (
      select old.tenant, old.delivery_id
      from webhooks w
      cross join lateral (
        select x.tenant, x.delivery_id from webhook_deliveries x
        where x.tenant = w.tenant and x.webhook_id = w.webhook_id and x.created_at < ${cutoff}::timestamptz and x.status <> 'pending'
        order by x.created_at
        limit ${limit}
      ) old
      limit ${limit}
    ) gone
    where d.tenant = gone.tenant and d.delivery_id = gone.delivery_id`.execute(db);
  return Number(numAffectedRows ?? 0);
}

/** The worker's retention schedule for delivery history (hourly; bounded per run, the rest waits a turn). */
export function webhookMaintenance(db: Kysely<DB>, opts: { cron?: string; batchSize?: number } = {}): RunSchedule {
  const batchSize = opts.batchSize ?? 1000;
  return {
    name: 'webhook-delivery-retention',
    cron: opts.cron ?? '0 * * * *',
    run: async () => {
      for (let i = 0; i < 20; i++) {
        if ((await purgeOldDeliveries(db, { batchSize })) < batchSize) return;
      }
    },
  };
}
