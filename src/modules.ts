import type { InboundAction } from './platform/actions/action.ts';
import { installManifests } from './platform/modules/install.ts';
import type { ModuleParts, WorkerParts } from './platform/modules/module.ts';
import type { AreaModule, ModuleDeps, WorkerDeps } from './modules/deps.ts';
import { apiKeysModule } from './modules/api-keys/index.ts';
import { assetsModule } from './modules/assets/index.ts';
import { authModule } from './modules/auth/index.ts';
import { billingModule } from './modules/billing/index.ts';
import { kbModule } from './modules/kb/index.ts';
import { opportunitiesModule } from './modules/opportunities/index.ts';
import { automationModule } from './modules/automation/index.ts';
import { ledgerModule } from './modules/ledger/index.ts';
import { clientsModule } from './modules/clients/index.ts';
import { contactsModule } from './modules/contacts/index.ts';
import { countriesModule } from './modules/countries/index.ts';
import { entitlementsModule } from './modules/entitlements/index.ts';
import { healthModule } from './modules/health/index.ts';
import { inboundWebhooksModule } from './modules/inbound-webhooks/index.ts';
import { projectsModule } from './modules/projects/index.ts';
import { rmmModule } from './modules/rmm/index.ts';
import { rolesModule } from './modules/roles/index.ts';
import { searchModule } from './modules/search/index.ts';
import { storageModule } from './modules/storage/index.ts';
import { teamsModule } from './modules/teams/index.ts';
import { tenantsModule } from './modules/tenants/index.ts';
import { ticketsModule } from './modules/tickets/index.ts';
import { twoFactorModule } from './modules/two-factor/index.ts';
import { upcomingModule } from './modules/upcoming/index.ts';
import { usersModule } from './modules/users/index.ts';
import { webhooksModule } from './modules/webhooks/index.ts';

/**
 * The composition root's one list: every area, in build order (an area that looks up another's
 * service while it is built comes after it). Adding an area is a folder with a manifest and a line here.
 */
export const MODULES: readonly AreaModule[] = [
  healthModule,
  countriesModule,
  tenantsModule,
  rolesModule,
  usersModule,
  twoFactorModule,
  authModule,
  apiKeysModule,
  teamsModule,
  entitlementsModule,
  clientsModule,
  contactsModule,
  ticketsModule,
  assetsModule,
  projectsModule,
  billingModule,
  kbModule,
  opportunitiesModule,
  storageModule,
  webhooksModule,
  rmmModule,
  inboundWebhooksModule,
  automationModule,
  ledgerModule,
  searchModule,
  upcomingModule,
];

// Importing the list installs its static part (permissions and built-in roles, the event vocabulary,
// the search indexers), so every entry point — api, worker, CLI, tests — sees the same registries.
installManifests(MODULES);

export type BuiltArea = ModuleParts & { name: string };

/** Builds every area with the platform's dependencies; the result feeds the app's routes and the worker. */
export function buildModules(deps: Omit<ModuleDeps, 'services' | 'inboundActions'>): BuiltArea[] {
  const built: BuiltArea[] = [];
  const apis = new Map<string, unknown>();
  let actions: readonly InboundAction[] | undefined;
  const full: ModuleDeps = {
    ...deps,
    services<T>(name: string): T {
      if (!apis.has(name)) throw new Error(`no service API from module '${name}' (unknown, or listed after the module that needs it)`);
      return apis.get(name) as T;
    },
    inboundActions: () => (actions ??= built.flatMap((m) => m.inboundActions ?? [])),
  };
  for (const module of MODULES) {
    const parts = module.build?.(full) ?? {};
    if (parts.api !== undefined) apis.set(module.name, parts.api);
    built.push({ name: module.name, ...parts });
  }
  return built;
}

/** Every area's worker part, merged in the module list's order (consumers run in that order). */
export function buildWorkerParts(deps: WorkerDeps): Required<WorkerParts> {
  const parts = MODULES.map((module) => module.worker?.(deps) ?? {});
  return {
    consumers: parts.flatMap((p) => p.consumers ?? []),
    jobs: parts.flatMap((p) => p.jobs ?? []),
    schedules: parts.flatMap((p) => p.schedules ?? []),
    services: parts.flatMap((p) => p.services ?? []),
  };
}
