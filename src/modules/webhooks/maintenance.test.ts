import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { createWebhook, deliveriesOf } from '../../../test/webhooks-kit.ts';
import type { WebhookDeliveryStatus } from '../../platform/db/schema.ts';
import { newId } from '../../platform/ids.ts';
import { DELIVERY_RETENTION_MS, purgeOldDeliveries, webhookMaintenance } from './maintenance.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
});
afterAll(async () => t.close());

const DAY = 24 * 60 * 60_000;

async function insertRow(tenant: string, webhookId: string, status: WebhookDeliveryStatus, createdAt: Date, isTest = false) {
  await t.database.db.insertInto('webhook_deliveries').values({
    tenant,
    delivery_id: newId(),
    webhook_id: webhookId,
    event_id: newId(),
    event_type: isTest ? 'webhook.test' : 'ticket.updated',
    attempt: 1,
    status,
    request_body: '{}',
    is_test: isTest,
    attempted_at: status === 'pending' ? null : createdAt,
    next_attempt_at: status === 'pending' ? createdAt : null,
    created_at: createdAt,
  }).execute();
}

describe('delivery retention', () => {
  it('purges rows older than 30 days in every tenant, never a pending attempt, in bounded batches', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const hookA = await createWebhook(a.admin, { url: 'http://127.0.0.1:9/hook' });
    const hookB = await createWebhook(b.admin, { url: 'http://127.0.0.1:9/hook' });
    const now = new Date();
    const old = new Date(now.getTime() - DELIVERY_RETENTION_MS - 1000);
    const recent = new Date(now.getTime() - 29 * DAY);
    for (const status of ['delivered', 'retrying', 'abandoned', 'failed', 'pending'] as const) await insertRow(a.tenant, hookA.webhook_id, status, old);
    await insertRow(a.tenant, hookA.webhook_id, 'failed', old, true);
    await insertRow(a.tenant, hookA.webhook_id, 'delivered', recent);
    await insertRow(b.tenant, hookB.webhook_id, 'delivered', old);
    await insertRow(b.tenant, hookB.webhook_id, 'abandoned', recent);

    expect(await purgeOldDeliveries(t.database.db, { now, batchSize: 2 })).toBe(2);
    await webhookMaintenance(t.database.db, { batchSize: 2 }).run();

    const left = async (tenant: string, webhookId: string) => (await deliveriesOf(t, tenant, webhookId)).map((r) => [r.status, r.created_at.getTime() === old.getTime() ? 'old' : 'recent']);
    expect((await left(a.tenant, hookA.webhook_id)).sort()).toEqual([['delivered', 'recent'], ['pending', 'old']]);
    expect(await left(b.tenant, hookB.webhook_id)).toEqual([['abandoned', 'recent']]);
    expect(await purgeOldDeliveries(t.database.db, { now })).toBe(0);
  });

  it('is a worker task that runs hourly', () => {
    const task = webhookMaintenance(t.database.db);
    expect(task).toMatchObject({ name: 'webhook-delivery-retention', cron: '0 * * * *' });
  });
});
