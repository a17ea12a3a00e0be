import { sql, type Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { RunSchedule } from '../../platform/jobs/types.ts';

/** Delivery records are kept this long (the spec's delivery history retention). */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60_000;
/** Abandoned external-id claims (their delivery died mid-creation) are swept after this long. */
const STALE_CLAIM_MS = 60 * 60_000;

/**
 * Deletes delivery records past retention and expired idempotency keys, in bounded batches (oldest
 * first, by their indexes), and abandoned external-id claims. Returns how many rows went.
 */
export async function purgeInboundWebhookData(db: Kysely<DB>, opts: { now?: Date; batchSize?: number } = {}): Promise<number> {
  const now = opts.now ?? new Date();
  const batch = opts.batchSize ?? 1000;
  const deliveries = await sql`
    delete from inbound_webhook_deliveries where (tenant, delivery_id) in (
      select tenant, delivery_id from inbound_webhook_deliveries
      where received_at < ${new Date(now.getTime() - DELIVERY_RETENTION_MS)} order by received_at limit ${batch})`.execute(db);
  const keys = await sql`
    delete from inbound_webhook_idempotency_keys where (tenant, inbound_webhook_id, idempotency_key) in (
      select tenant, inbound_webhook_id, idempotency_key from inbound_webhook_idempotency_keys
      where expires_at <= ${now} order by expires_at limit ${batch})`.execute(db);
  const claims = await db
    .deleteFrom('inbound_external_ids')
    .where('entity_id', 'is', null)
    .where('claimed_until', '<', new Date(now.getTime() - STALE_CLAIM_MS))
    .executeTakeFirst();
  return Number(deliveries.numAffectedRows ?? 0) + Number(keys.numAffectedRows ?? 0) + Number(claims.numDeletedRows);
}

/** The worker's schedule: purges every 10 minutes (or per `cron`), a few batches per run. */
export function inboundWebhooksMaintenance(db: Kysely<DB>, opts: { cron?: string } = {}): RunSchedule {
  return {
    name: 'inbound-webhooks-retention',
    cron: opts.cron ?? '*/10 * * * *',
    run: async () => {
      for (let i = 0; i < 10; i++) if ((await purgeInboundWebhookData(db)) === 0) return;
    },
  };
}
