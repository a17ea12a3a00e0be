import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Database } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AUTH_CHANNEL, type KeyCache } from '../../platform/auth/key-cache.ts';
import type { BucketStore } from '../../platform/http/rate-limit/token-bucket.ts';
import { createActionRegistry } from './actions/registry.ts';
import { createDeliveriesService } from './deliveries/deliveries.service.ts';
import { deliveriesRoutes } from './deliveries/deliveries.routes.ts';
import { createDispatcher } from './dispatch.ts';
import { inboundWebhooksRoutes } from './inbound-webhooks.routes.ts';
import { createInboundWebhooksService } from './inbound-webhooks.service.ts';
import { createReceiver } from './receiver.ts';
import { RECEIVER_CONFIGS_CHANNEL, ReceiverConfigs } from './receiver-configs.ts';
import { InboundWorkflows } from './workflows.ts';
import { receiverRoutes } from './receiver.routes.ts';
import type { InboundAction } from '../../platform/actions/action.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';

import { inboundWebhooksMaintenance } from './inbound-webhooks.maintenance.ts';

export { purgeInboundWebhookData } from './inbound-webhooks.maintenance.ts';
export type { InboundWorkflows, WorkflowDelivery, WorkflowHandler } from './workflows.ts';

export interface InboundWebhooksModuleDeps {
  db: Kysely<DB>;
  /** Carries the notifications that drop other processes' cached configurations. */
  database: Database;
  config: Readonly<Config>;
  secretBox: SecretBox;
  buckets: BucketStore;
  /** Caches the owners the direct actions run as (invalidated with the tenant's keys). */
  keyCache: KeyCache;
  /** Every area's direct actions. */
  inboundActions(): readonly InboundAction[];
}

/**
 * Inbound webhooks: configurations and their delivery records under /api/v1 (`routes`), and the
 * public receiver (`receiverRoutes`, mounted at /api/inbound).
 */
export function createInboundWebhooksModule(deps: InboundWebhooksModuleDeps) {
  const { db, config, secretBox, buckets } = deps;
  const registry = createActionRegistry(deps.inboundActions);
  const workflows = new InboundWorkflows();
  const dispatch = createDispatcher({ db, registry, workflows, keyCache: deps.keyCache });
  const configs = new ReceiverConfigs(db);
  const service = createInboundWebhooksService({ db, secretBox, registry, publicUrl: config.publicUrl, configs });
  const deliveries = createDeliveriesService({ db, dispatch, registry });
  const receive = createReceiver({ db, configs, secretBox, buckets, dispatch, trustProxy: config.trustProxy, authFailureLimit: config.authFailureLimit });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    const unlisten = [
      await deps.database.listen(RECEIVER_CONFIGS_CHANNEL, () => configs.clear()),
      await deps.database.listen(AUTH_CHANNEL, (tenant) => (tenant ? configs.invalidateTenant(tenant) : configs.clear())),
    ];
    app.addHook('onClose', async () => { for (const stop of unlisten) await stop(); });
    await app.register(inboundWebhooksRoutes(service));
    await app.register(deliveriesRoutes(deliveries));
  };
  return { service, deliveries, workflows, routes, receiverRoutes: receiverRoutes(receive, config.inboundBodyLimitBytes) };
}

/** What other areas reach (the automation engine registers the workflow handler). */
export type InboundWebhooksApi = ReturnType<typeof createInboundWebhooksModule>;

export const inboundWebhooksModule = defineModule({
  name: 'inbound-webhooks',
  permissions: [{ resource: 'inbound_webhook', actions: CRUD, roles: { Manager: CRUD } }],
  build: (deps) => {
    const inbound = createInboundWebhooksModule(deps);
    return {
      api: inbound,
      routes: [
        { prefix: V1, plugin: inbound.routes },
        { prefix: '/api/inbound', plugin: inbound.receiverRoutes },
      ],
    };
  },
  worker: ({ db }) => ({ schedules: [inboundWebhooksMaintenance(db)] }),
});
