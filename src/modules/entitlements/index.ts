import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { entitlementsRoutes } from './entitlements.routes.ts';
import { createEntitlementsService } from './entitlements.service.ts';
import { defineModule, V1 } from '../deps.ts';

export { FEATURES, findFeature, decideAccess, effectivePlan, type Feature, type TenantPlan } from './features.ts';

/** Feature entitlements: the registry, and who may use what under the tenant's plan. */
export function createEntitlementsModule(deps: { db: Kysely<DB> }) {
  const service = createEntitlementsService(deps);
  return { service, routes: entitlementsRoutes(service) };
}

export const entitlementsModule = defineModule({
  name: 'entitlements',
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createEntitlementsModule(deps).routes }] }),
});
