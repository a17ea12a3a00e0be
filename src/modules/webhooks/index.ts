import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deliveriesRoutes } from './deliveries/deliveries.routes.ts';
import { createDeliveriesService } from './deliveries/deliveries.service.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import { createWebhooksService, type WebhooksDeps } from './webhooks.service.ts';

export { webhookFanOut } from './fanout.ts';
export { autoDisabledMail } from './auto-disable.ts';
export { WebhookDispatcher, RETRY_DELAYS_MS, MAX_ATTEMPTS, AUTO_DISABLE_AFTER_MS, type DispatcherOptions, type DispatcherLog } from './dispatcher.ts';
export { webhookDeliveryService, type DeliveryServiceDeps } from './delivery-service.ts';
export { purgeOldDeliveries, webhookMaintenance, DELIVERY_RETENTION_MS } from './maintenance.ts';
export { DELIVERY_CHANNEL } from './webhooks.repo.ts';
export { WEBHOOK_EVENTS } from './webhooks.events.ts';

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
