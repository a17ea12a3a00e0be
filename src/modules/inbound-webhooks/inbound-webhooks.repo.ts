import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { preparedQuery } from '../../platform/db/prepared.ts';
import type { InboundHandlerType, InboundWebhooksTable } from '../../platform/db/schema.ts';
import { defineList } from '../../platform/http/list.ts';

export type InboundWebhookRow = Selectable<InboundWebhooksTable>;

/** Everything but the sample body (lists and the receiver never need it). */
const SUMMARY_COLUMNS = [
  'tenant', 'inbound_webhook_id', 'name', 'description', 'slug', 'auth_type', 'auth_config', 'secret_enc', 'secret_rotated_at',
  'idempotency_source', 'idempotency_window_seconds', 'handler_type', 'handler_config', 'rate_limit_per_minute', 'is_active',
  'sample_captured_at', 'sample_capture_requested_at', 'created_by_user_id', 'created_at', 'updated_at',
] as const;

export type InboundWebhookSummaryRow = Omit<InboundWebhookRow, 'sample_payload'>;

export async function findWebhook(db: Executor, tenant: string, id: string, lock = false): Promise<InboundWebhookRow | undefined> {
  let q = db.selectFrom('inbound_webhooks').selectAll().where('tenant', '=', tenant).where('inbound_webhook_id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findWebhookIdBySlug(db: Executor, tenant: string, slug: string): Promise<string | undefined> {
  const row = await db.selectFrom('inbound_webhooks').select('inbound_webhook_id').where('tenant', '=', tenant).where('slug', '=', slug).executeTakeFirst();
  return row?.inbound_webhook_id;
}

// Prepared: every delivery starts with it.
const receiverLookup = preparedQuery(['tenantSlug', 'webhookSlug'], (db, v) =>
  db
    .selectFrom('inbound_webhooks as w')
    .innerJoin('tenants as t', 't.tenant_id', 'w.tenant')
    .select(SUMMARY_COLUMNS.map((c) => `w.${c}` as const))
    .where('t.slug', '=', v.tenantSlug)
    .where('w.slug', '=', v.webhookSlug),
);

/** The receiver's one lookup: tenant slug and webhook slug → the configuration (not its sample body). */
export async function findForReceiver(db: Executor, tenantSlug: string, webhookSlug: string): Promise<InboundWebhookSummaryRow | undefined> {
  return (await receiverLookup(db, { tenantSlug, webhookSlug }))[0] as InboundWebhookSummaryRow | undefined;
}

export async function insertWebhook(db: Executor, row: Insertable<InboundWebhooksTable>): Promise<InboundWebhookRow> {
  return db.insertInto('inbound_webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWebhook(db: Executor, tenant: string, id: string, set: Updateable<InboundWebhooksTable>): Promise<InboundWebhookRow> {
  return db.updateTable('inbound_webhooks').set(set).where('tenant', '=', tenant).where('inbound_webhook_id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('inbound_webhooks').where('tenant', '=', tenant).where('inbound_webhook_id', '=', id).execute();
}

/**
 * Stores the body as the sample if a capture is pending, and ends the capture, in one statement: of
 * concurrent requests exactly one becomes the sample.
 */
export async function captureSample(db: Executor, tenant: string, id: string, rawBody: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('inbound_webhooks')
    .set({ sample_payload: rawBody, sample_captured_at: at, sample_capture_requested_at: null })
    .where('tenant', '=', tenant)
    .where('inbound_webhook_id', '=', id)
    .where('sample_capture_requested_at', 'is not', null)
    .returning('inbound_webhook_id')
    .executeTakeFirst();
  return row !== undefined;
}

export interface WebhookListFilter {
  isActive?: boolean;
  handlerType?: InboundHandlerType;
}

/** Ties break on inbound_webhook_id in the requested direction. */
export function webhookList(db: Executor, tenant: string, f: WebhookListFilter) {
  let base = db.selectFrom('inbound_webhooks').where('tenant', '=', tenant);
  if (f.isActive !== undefined) base = base.where('is_active', '=', f.isActive);
  if (f.handlerType !== undefined) base = base.where('handler_type', '=', f.handlerType);
  return defineList({
    from: base,
    page: base.select(SUMMARY_COLUMNS),
    sorts: { name: [sql`lower(name)`], slug: ['slug'], created_at: ['created_at'], updated_at: ['updated_at'] },
    defaultSort: 'name',
    defaultOrder: 'asc',
    tieBreaker: 'inbound_webhook_id',
    updatedAt: 'updated_at',
  });
}
