import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../platform/db/schema.ts';
import { defineList } from '../../platform/http/list.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** The channel the dispatcher listens on: a new attempt is due now. */
export const DELIVERY_CHANNEL = 'psa_webhook_deliveries';

export async function notifyDispatchers(db: Executor): Promise<void> {
  await sql`select pg_notify(${DELIVERY_CHANNEL}, '')`.execute(db);
}

export async function findWebhookRow(db: Executor, tenant: string, webhookId: string, lock = false): Promise<WebhookRow | undefined> {
  let q = db.selectFrom('webhooks').selectAll().where('tenant', '=', tenant).where('webhook_id', '=', webhookId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertWebhook(db: Executor, row: Insertable<WebhooksTable>): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Executor, tenant: string, webhookId: string, set: Updateable<WebhooksTable>): Promise<void> {
  await db.updateTable('webhooks').set(set).where('tenant', '=', tenant).where('webhook_id', '=', webhookId).execute();
}

export async function deleteWebhook(db: Executor, tenant: string, webhookId: string): Promise<void> {
  await db.deleteFrom('webhooks').where('tenant', '=', tenant).where('webhook_id', '=', webhookId).execute();
}

/**
 * Parks (paused = true) or releases the webhook's pending attempts: an inactive webhook's attempts
 * wait outside the queue index until it is re-enabled. Returns how many rows changed.
 */
export async function setDeliveriesPaused(db: Executor, tenant: string, webhookId: string, paused: boolean): Promise<number> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ paused })
    .where('tenant', '=', tenant)
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('paused', '=', !paused)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export interface WebhookListFilter {
  isActive?: boolean;
  eventType?: string;
}

function filteredWebhooks(db: Executor, tenant: string, f: WebhookListFilter) {
  let q = db.selectFrom('webhooks').where('tenant', '=', tenant);
  if (f.isActive !== undefined) q = q.where('is_active', '=', f.isActive);
  if (f.eventType !== undefined) q = q.where(sql<boolean>`${f.eventType} = any(event_types)`);
  return q;
}

/** Ties break on webhook_id in the requested direction. */
export function webhookList(db: Executor, tenant: string, f: WebhookListFilter) {
  return defineList({
    from: filteredWebhooks(db, tenant, f),
    page: filteredWebhooks(db, tenant, f).selectAll(),
    sorts: { name: [sql`lower(name)`], created_at: ['created_at'], updated_at: ['updated_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'webhook_id',
    updatedAt: 'updated_at',
  });
}
