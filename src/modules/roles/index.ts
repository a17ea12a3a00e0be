import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import type { DB } from '../../platform/db/schema.ts';
import { rolesRoutes } from './roles.routes.ts';
import { createRolesService } from './roles.service.ts';
import { userRolesRoutes } from './user-roles.routes.ts';
import { createUserRolesService } from './user-roles.service.ts';

export { ADMIN_ROLE_NAME, CLIENT_PORTAL_PERMISSIONS } from './roles.rules.ts';
export { permissionsOfRoles } from './roles.repo.ts';

/** Roles, the permission catalogue, and who holds which role. */
export function createRolesModule(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const service = createRolesService(deps);
  const userRoles = createUserRolesService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(rolesRoutes(service));
    await app.register(userRolesRoutes(userRoles));
  };
  return { service, userRoles, routes };
}
