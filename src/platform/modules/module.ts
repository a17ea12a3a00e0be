import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InboundAction } from '../actions/action.ts';
import type { BuiltinRoleInfo, PermissionGrant } from '../auth/permissions.ts';
import type { EventContribution } from '../events/vocabulary.ts';
import type { Consumer } from '../events/relay.ts';
import type { BackgroundService } from '../events/worker.ts';
import type { JobDefinition, ScheduleDefinition } from '../jobs/types.ts';
import type { SearchIndexer } from '../search/types.ts';

/** A route plugin and the prefix it is mounted at (`/api/v1` for most). */
export interface RouteMount {
  prefix: string;
  plugin: FastifyPluginAsyncTypebox;
}

/**
 * What an area contributes to an api process once built: the service API other areas reach through
 * the service lookup (`api`), routes, and inbound-webhook actions.
 */
export interface ModuleParts {
  api?: unknown;
  routes?: readonly RouteMount[];
  inboundActions?: readonly InboundAction[];
}

/** What an area contributes to the worker: outbox consumers (in the order they run), jobs, cron schedules, long-lived loops. */
export interface WorkerParts {
  consumers?: readonly Consumer[];
  jobs?: readonly JobDefinition[];
  schedules?: readonly ScheduleDefinition[];
  services?: readonly BackgroundService[];
}

/**
 * An area's manifest. The static part — the permission resources it owns (with what each built-in role
 * gets), the event types it emits and the indexers of its searchable records — is installed into the
 * platform's registries before anything runs, so the CLI, the worker and every app know it alike.
 * `build` makes the api process's part from the dependencies the composition root hands every area;
 * `worker` makes the worker's part.
 */
export interface ModuleManifest<Deps, WorkerDeps> {
  name: string;
  permissions?: readonly PermissionGrant[];
  /** Built-in roles the area defines (the roles area); other areas grant into them by name. */
  builtinRoles?: readonly BuiltinRoleInfo[];
  events?: EventContribution;
  searchIndexers?: readonly SearchIndexer[];
  build?(deps: Deps): ModuleParts;
  worker?(deps: WorkerDeps): WorkerParts;
}
