import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { defineList } from '../../../platform/http/list.ts';
import type { WebhookDeliveriesTable, WebhookDeliveryStatus } from '../../../platform/db/schema.ts';
import type { DeliveryRow } from '../webhooks.repo.ts';

export async function insertDelivery(db: Executor, row: Insertable<WebhookDeliveriesTable>): Promise<DeliveryRow> {
  return db.insertInto('webhook_deliveries').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findDelivery(db: Executor, tenant: string, webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('delivery_id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/** What a manual retry must know about the event's other attempts: one still pending, and the last cycle. */
export async function eventAttempts(db: Executor, tenant: string, webhookId: string, eventId: string): Promise<{ pending: number; lastCycle: number }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select([
      sql<number>`count(*) filter (where status = 'pending')`.as('pending'),
      sql<number>`coalesce(max(cycle), 0)`.as('last_cycle'),
    ])
    .where('tenant', '=', tenant)
    .where('webhook_id', '=', webhookId)
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return { pending: Number(row.pending), lastCycle: Number(row.last_cycle) };
}

export interface DeliveryListFilter {
  status?: WebhookDeliveryStatus;
  eventType?: string;
  isTest?: boolean;
  from?: Date;
  to?: Date;
}

function filtered(db: Executor, tenant: string, webhookId: string, f: DeliveryListFilter) {
  let q = db.selectFrom('webhook_deliveries').where('tenant', '=', tenant).where('webhook_id', '=', webhookId);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.eventType !== undefined) q = q.where('event_type', '=', f.eventType);
  if (f.isTest !== undefined) q = q.where('is_test', '=', f.isTest);
  if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('created_at', '<', f.to);
  return q;
}

/** The webhook's attempts, newest first by default; ties break on delivery_id. */
export function deliveryList(db: Executor, tenant: string, webhookId: string, f: DeliveryListFilter) {
  return defineList({
    from: filtered(db, tenant, webhookId, f),
    page: filtered(db, tenant, webhookId, f).selectAll(),
    sorts: { created_at: ['created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'delivery_id',
    // A delivery changes when it is created and when it is attempted.
    updatedAt: sql<Date>`greatest(created_at, attempted_at)`,
  });
}
