import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DB } from '../../platform/db/schema.ts';
import type { OutboundClient } from '../../platform/net/outbound-http.ts';
import { assetRmmRoutes } from './assets/asset-rmm.routes.ts';
import { createAssetRmmService } from './assets/asset-rmm.service.ts';
import { createRmmCommandsService } from './assets/commands.service.ts';
import { integrationsRoutes } from './integrations/integrations.routes.ts';
import { createIntegrationsService } from './integrations/integrations.service.ts';
import { createProviderRegistry, type ProviderRegistry } from './providers/registry.ts';
import { defineModule, V1 } from '../deps.ts';

export type { RmmProvider, RmmDevice, RmmSoftware, RmmConnection } from './providers/provider.ts';
export { RmmProviderError } from './providers/provider.ts';
export { RMM_EVENTS } from './rmm.events.ts';

export interface RmmModuleDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  /** The SSRF-guarded outbound client (shared with webhooks). */
  client: OutboundClient;
  /** Tests inject adapters with short timeouts; the default is every registered provider. */
  providers?: ProviderRegistry;
}

/**
 * RMM integration: a tenant's connections to RMM products, the link from an asset to one managed device
 * with its cached data and software, and the commands (refresh, reboot, remote control, script) sent to it.
 */
export function createRmmModule(deps: RmmModuleDeps) {
  const full = { ...deps, providers: deps.providers ?? createProviderRegistry(deps.client) };
  const integrations = createIntegrationsService(full);
  const assets = createAssetRmmService(full);
  const commands = createRmmCommandsService(full);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(integrationsRoutes(integrations));
    await app.register(assetRmmRoutes(assets, commands));
  };
  return { integrations, assets, commands, routes };
}

export const rmmModule = defineModule({
  name: 'rmm',
  // rmm:execute sends commands to a managed device (refresh, reboot, remote control, scripts).
  permissions: [{ resource: 'rmm', actions: ['execute'], roles: { Manager: ['execute'], Technician: ['execute'] } }],
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createRmmModule({ db: deps.db, secretBox: deps.secretBox, client: deps.outbound }).routes }] }),
});
