import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deliveriesRoutes } from './deliveries/deliveries.routes.ts';
import { createDeliveriesService } from './deliveries/deliveries.service.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import { createWebhooksService, type WebhooksDeps } from './webhooks.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';

import { autoDisabledMail } from './auto-disable.ts';
import { webhookDeliveryService } from './delivery-service.ts';
import { webhookFanOut } from './fanout.ts';
import { webhookMaintenance } from './maintenance.ts';

export { webhookFanOut };
export { WebhookDispatcher, RETRY_DELAYS_MS, MAX_ATTEMPTS, AUTO_DISABLE_AFTER_MS, type DispatcherOptions, type DispatcherLog } from './dispatcher.ts';
export { DELIVERY_CHANNEL } from './webhooks.repo.ts';
export { WEBHOOK_EVENTS } from './webhooks.events.ts';
// The signature of outbound webhooks (automation's call_url signs the same way).
export { signatureHeader } from './attempt.ts';

/** Outbound webhooks: the subscriptions, their delivery history, secret rotation and test sends. */
export function createWebhooksModule(deps: WebhooksDeps) {
  const service = createWebhooksService(deps);
  const deliveries = createDeliveriesService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(webhooksRoutes(service));
    await app.register(deliveriesRoutes(deliveries));
  };
  return { service, deliveries, routes };
}

export const webhooksModule = defineModule({
  name: 'webhooks',
  permissions: [{ resource: 'webhook', actions: CRUD, roles: { Manager: CRUD } }],
  build: (deps) => ({
    routes: [{ prefix: V1, plugin: createWebhooksModule({ db: deps.db, secretBox: deps.secretBox, client: deps.outbound }).routes }],
  }),
  // Fan-out turns events into deliveries, the delivery service sends them; old deliveries are purged.
  worker: ({ db, database, config, secretBox, mailer, log }) => ({
    consumers: [webhookFanOut({ db }), autoDisabledMail({ db, mailer })],
    services: [webhookDeliveryService({ database, secretBox, log, allowPrivate: config.webhookAllowPrivate, leaseMs: config.webhookLeaseMs })],
    schedules: [webhookMaintenance(db)],
  }),
});
