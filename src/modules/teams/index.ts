import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { membershipsRoutes } from './memberships.routes.ts';
import { createMembershipsService } from './memberships.service.ts';
import { teamsRoutes } from './teams.routes.ts';
import { createTeamsService } from './teams.service.ts';

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
