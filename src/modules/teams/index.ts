import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { membershipsRoutes } from './memberships.routes.ts';
import { createMembershipsService } from './memberships.service.ts';
import { teamsRoutes } from './teams.routes.ts';
import { createTeamsService } from './teams.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';

import { clearTeamManager } from './managers.service.ts';
import type { UsersApi } from '../users/index.ts';

/** Teams, their members, and each user's memberships. */
export function createTeamsModule(deps: { db: Kysely<DB> }) {
  const service = createTeamsService(deps);
  const memberships = createMembershipsService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(teamsRoutes(service));
    await app.register(membershipsRoutes(memberships));
  };
  return { service, memberships, routes };
}

export const teamsModule = defineModule({
  name: 'teams',
  permissions: [{ resource: 'team', actions: CRUD, roles: { Manager: CRUD, Technician: ['read'] } }],
  build: (deps) => {
    // Teams a user managed lose their manager when the user is deleted (in the deletion's transaction).
    deps.services<UsersApi>('users').lifecycle.onDeleting(clearTeamManager);
    return { routes: [{ prefix: V1, plugin: createTeamsModule(deps).routes }] };
  },
});
