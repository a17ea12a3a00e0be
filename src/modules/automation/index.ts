import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { CRUD } from '../../platform/auth/permissions.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DB } from '../../platform/db/schema.ts';
import { defineModule, V1 } from '../deps.ts';
import { AUTOMATION_EVENT_TYPES } from './automation.events.ts';
import { createEngine, engineWorker, registerInboundWorkflows } from './engine/engine.module.ts';
import { metaRoutes } from './meta/meta.routes.ts';
import { rulesRoutes } from './rules/rules.routes.ts';
import { createRulesService } from './rules/rules.service.ts';
import { statsRoutes } from './stats/stats.routes.ts';
import { createStatsService } from './stats/stats.service.ts';
import { templatesRoutes } from './templates/templates.routes.ts';
import { createTemplatesService } from './templates/templates.service.ts';

export { engineWorker, type EngineWorkerOptions } from './engine/engine.module.ts';
export type { ActionDefinition, ActionRunner, TriggerEnvelope } from './automation.types.ts';

/**
 * Automation: rules (a trigger, conditions, ordered actions through the areas' own writes), executions
 * run by the worker at least once and idempotently per trigger, templates, and the engine's statistics.
 */
export function createAutomationModule(deps: { db: Kysely<DB>; secretBox: SecretBox }) {
  const engine = createEngine(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(rulesRoutes(createRulesService(deps)));
    await app.register(templatesRoutes(createTemplatesService(deps)));
    await app.register(metaRoutes);
    await app.register(statsRoutes(createStatsService(deps)));
    await app.register(engine.routes);
  };
  return { routes };
}

export const automationModule = defineModule({
  name: 'automation',
  permissions: [{ resource: 'automation', actions: CRUD, roles: { Manager: CRUD } }],
  events: { types: AUTOMATION_EVENT_TYPES },
  build: (deps) => {
    registerInboundWorkflows(deps);
    return { routes: [{ prefix: V1, plugin: createAutomationModule(deps).routes }] };
  },
  worker: (deps) => engineWorker(deps),
});
