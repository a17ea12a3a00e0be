import type { Database } from './platform/db/database.ts';
import type { BackgroundService, PeriodicTask, WorkerLog } from './platform/events/worker.ts';
import type { Config } from './config.ts';
import type { SecretBox } from './platform/crypto/secret-box.ts';
import { authMaintenance } from './modules/auth/index.ts';
import { storageMaintenance } from './modules/storage/index.ts';
import { webhookDeliveryService, webhookMaintenance } from './modules/webhooks/index.ts';
import { inboundWebhooksMaintenance } from './modules/inbound-webhooks/index.ts';

/**
 * Periodic housekeeping of the areas (expiry sweeps and the like), run by the worker. The platform's
 * own retention tasks are built into the worker.
 */
export function backgroundTasks(database: Database): PeriodicTask[] {
  return [authMaintenance(database.db), storageMaintenance(database.db), webhookMaintenance(database.db), inboundWebhooksMaintenance(database.db)];
}

/** Long-lived loops the worker runs beside the outbox relay: the webhook dispatcher. */
export function backgroundServices(deps: { database: Database; config: Readonly<Config>; secretBox: SecretBox; log: WorkerLog }): BackgroundService[] {
  const { database, config, secretBox, log } = deps;
  return [webhookDeliveryService({ database, secretBox, log, allowPrivate: config.webhookAllowPrivate, leaseMs: config.webhookLeaseMs })];
}
