import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { ASYNC_COMMIT } from '../../../platform/db/async-commit.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { PREPARE_MARK } from '../../../platform/db/prepared.ts';
import { defineList } from '../../../platform/http/list.ts';
import type { DB, InboundAuthStatus, InboundDispatchStatus, InboundWebhookDeliveriesTable } from '../../../platform/db/schema.ts';

export type DeliveryRow = Selectable<InboundWebhookDeliveriesTable>;

// Both run on every delivery, prepared: their texts vary only with the outcome's columns, a few shapes.
export async function insertDelivery(db: Executor, row: Insertable<InboundWebhookDeliveriesTable>): Promise<void> {
  await db.insertInto('inbound_webhook_deliveries').values(row).modifyEnd(sql.raw(PREPARE_MARK)).execute();
}

/**
 * The delivery on record while its handler runs, on its own or in the transaction that claims its
 * idempotency key. That commit does not wait for the WAL flush (async-commit.ts): the handler's own commit,
 * or the delivery's finishing update, always follows and flushes it. A crash before then loses the delivery
 * and its claim together, and the sender, who got no answer, sends it again.
 */
export async function insertProcessingDelivery(db: Kysely<DB>, row: Insertable<InboundWebhookDeliveriesTable>): Promise<void> {
  await db.insertInto('inbound_webhook_deliveries').values(row).returning(ASYNC_COMMIT.as('async_commit')).modifyEnd(sql.raw(PREPARE_MARK)).execute();
}

export async function finishDelivery(db: Executor, tenant: string, deliveryId: string, set: Updateable<InboundWebhookDeliveriesTable>): Promise<void> {
  await db
    .updateTable('inbound_webhook_deliveries')
    .set(set)
    .where('tenant', '=', tenant)
    .where('delivery_id', '=', deliveryId)
    .modifyEnd(sql.raw(PREPARE_MARK))
    .execute();
}

export async function findDelivery(db: Executor, tenant: string, inboundWebhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('inbound_webhook_deliveries')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('inbound_webhook_id', '=', inboundWebhookId)
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
}

export interface DeliveryListFilter {
  authStatus?: InboundAuthStatus;
  dispatchStatus?: InboundDispatchStatus;
  from?: Date;
  to?: Date;
  isTest?: boolean;
  isReplay?: boolean;
}

/** Lists never carry bodies: `request_body` is left out (`has_request_body` says whether one is kept). */
const LIST_COLUMNS = [
  'tenant', 'delivery_id', 'inbound_webhook_id', 'received_at', 'completed_at', 'request_method', 'request_path', 'request_headers',
  'request_body_bytes', 'source_ip', 'user_agent', 'idempotency_key', 'auth_status', 'dispatch_status', 'handler_type', 'handler_outcome',
  'response_status', 'response_body', 'duration_ms', 'is_test', 'is_replay', 'replayed_from_delivery_id', 'duplicate_of_delivery_id',
  'triggered_by_user_id',
] as const;

export type DeliveryListRow = Omit<DeliveryRow, 'request_body'> & { has_request_body: boolean };

/** Newest first by default; deliveries without a duration sort last; ties break on delivery_id. */
export function deliveryList(db: Executor, tenant: string, inboundWebhookId: string, f: DeliveryListFilter) {
  let base = db.selectFrom('inbound_webhook_deliveries').where('tenant', '=', tenant).where('inbound_webhook_id', '=', inboundWebhookId);
  if (f.authStatus !== undefined) base = base.where('auth_status', '=', f.authStatus);
  if (f.dispatchStatus !== undefined) base = base.where('dispatch_status', '=', f.dispatchStatus);
  if (f.from !== undefined) base = base.where('received_at', '>=', f.from);
  if (f.to !== undefined) base = base.where('received_at', '<', f.to);
  if (f.isTest !== undefined) base = base.where('is_test', '=', f.isTest);
  if (f.isReplay !== undefined) base = base.where('is_replay', '=', f.isReplay);
  return defineList({
    from: base,
    page: base.select(LIST_COLUMNS).select(sql<boolean>`request_body is not null`.as('has_request_body')),
    sorts: { received_at: ['received_at'], duration_ms: [{ by: 'duration_ms', nullsLast: true }] },
    defaultSort: 'received_at',
    defaultOrder: 'desc',
    tieBreaker: 'delivery_id',
    updatedAt: sql<Date>`coalesce(completed_at, received_at)`,
  });
}

export type KeyClaim = { claimed: true } | { claimed: false; originalDeliveryId: string | undefined };

/**
 * Claims an idempotency key for a delivery: one statement against the unique key, so of concurrent
 * duplicates exactly one claims it (the others wait for its commit and then see it). An expired key is
 * taken over in the same statement. Otherwise reports the delivery that holds the key (undefined if it
 * was released in the meantime: the caller retries).
 */
export async function claimIdempotencyKey(
  db: Executor,
  k: { tenant: string; inboundWebhookId: string; key: string; deliveryId: string; now: Date; expiresAt: Date },
): Promise<KeyClaim> {
  const won = await db
    .insertInto('inbound_webhook_idempotency_keys')
    .values({ tenant: k.tenant, inbound_webhook_id: k.inboundWebhookId, idempotency_key: k.key, delivery_id: k.deliveryId, expires_at: k.expiresAt })
    .onConflict((oc) =>
      oc
        .columns(['tenant', 'inbound_webhook_id', 'idempotency_key'])
        .doUpdateSet((eb) => ({ delivery_id: eb.ref('excluded.delivery_id'), expires_at: eb.ref('excluded.expires_at') }))
        .where('inbound_webhook_idempotency_keys.expires_at', '<=', k.now),
    )
    .returning('delivery_id')
    .executeTakeFirst();
  if (won?.delivery_id === k.deliveryId) return { claimed: true };
  const holder = await db
    .selectFrom('inbound_webhook_idempotency_keys')
    .select('delivery_id')
    .where('tenant', '=', k.tenant)
    .where('inbound_webhook_id', '=', k.inboundWebhookId)
    .where('idempotency_key', '=', k.key)
    .executeTakeFirst();
  return { claimed: false, originalDeliveryId: holder?.delivery_id };
}

/** Frees a key its delivery failed with, so the sender's retry is processed (only if it still holds it). */
export async function releaseIdempotencyKey(db: Executor, tenant: string, inboundWebhookId: string, key: string, deliveryId: string): Promise<void> {
  await db
    .deleteFrom('inbound_webhook_idempotency_keys')
    .where('tenant', '=', tenant)
    .where('inbound_webhook_id', '=', inboundWebhookId)
    .where('idempotency_key', '=', key)
    .where('delivery_id', '=', deliveryId)
    .execute();
}
