import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { findWebhookRow, notifyDispatchers } from '../webhooks.repo.ts';
import { toDelivery } from './deliveries.mapper.ts';
import { deliveryList, eventAttempts, findDelivery, insertDelivery } from './deliveries.repo.ts';
import type { Delivery, ListDeliveriesQuery } from './deliveries.schemas.ts';

export function createDeliveriesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  async function requireWebhookId(tenant: string, webhookId: string): Promise<void> {
    if (!(await findWebhookRow(db, tenant, webhookId))) throw notFound('Webhook', webhookId);
  }

  return {
    /** The webhook's attempts, newest first (order=asc for oldest first). */
    async list(actor: Actor, webhookId: string, query: ListDeliveriesQuery) {
      await requireWebhookId(actor.tenant, webhookId);
      const filter = {
        status: query.status,
        eventType: query.event_type,
        isTest: query.is_test,
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
      };
      return listPage(query, deliveryList(db, actor.tenant, webhookId, filter), (rows) => rows.map(toDelivery));
    },

    async get(actor: Actor, webhookId: string, deliveryId: string): Promise<Delivery> {
      await requireWebhookId(actor.tenant, webhookId);
      const row = await findDelivery(db, actor.tenant, webhookId, deliveryId);
      if (!row) throw notFound('Delivery', deliveryId);
      return toDelivery(row);
    },

    /**
     * Queues a fresh cycle of up to six attempts for a finally failed (abandoned or failed) delivery of a
     * real event: the stored envelope, the same event_id. 409 for a test delivery, a delivery that is not
     * a final failure, or an event with an attempt still pending. The webhook row is locked, so two
     * retries of one event cannot both pass the checks.
     */
    async retry(actor: Actor, webhookId: string, deliveryId: string): Promise<Delivery> {
      return withTransaction(db, async (trx) => {
        const webhook = await findWebhookRow(trx, actor.tenant, webhookId, true);
        if (!webhook) throw notFound('Webhook', webhookId);
        const row = await findDelivery(trx, actor.tenant, webhookId, deliveryId);
        if (!row) throw notFound('Delivery', deliveryId);
        if (row.is_test) throw conflict('Test deliveries are not retried; send another test instead', { reason: 'test_delivery' });
        if (row.status !== 'abandoned' && row.status !== 'failed') {
          throw conflict(`Only a final failure (abandoned or failed) can be retried; this attempt is ${row.status}`, { reason: 'not_final', status: row.status });
        }
        const { pending, lastCycle } = await eventAttempts(trx, actor.tenant, webhookId, row.event_id);
        if (pending > 0) throw conflict('An attempt for this event is already pending', { reason: 'in_flight', event_id: row.event_id });
        const now = new Date();
        const next = await insertDelivery(trx, {
          tenant: actor.tenant,
          delivery_id: newId(),
          webhook_id: webhookId,
          event_id: row.event_id,
          event_type: row.event_type,
          cycle: lastCycle + 1,
          attempt: 1,
          status: 'pending',
          request_body: row.request_body,
          is_test: false,
          paused: !webhook.is_active,
          next_attempt_at: now,
          created_at: now,
        });
        if (webhook.is_active) await notifyDispatchers(trx);
        return toDelivery(next);
      });
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
