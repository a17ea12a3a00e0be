import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import type { DB } from '../../platform/db/schema.ts';
import { rolesRoutes } from './roles.routes.ts';
import { createRolesService } from './roles.service.ts';
import { userRolesRoutes } from './user-roles.routes.ts';
import { createUserRolesService } from './user-roles.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';

import { ADMIN_ROLE_NAME } from './roles.rules.ts';

export { ADMIN_ROLE_NAME };
export { assignRole, permissionsOfRoles, seedBuiltinRoles } from './grants.service.ts';

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

export const rolesModule = defineModule({
  name: 'roles',
  permissions: [{ resource: 'role', actions: CRUD, roles: { Manager: ['read'] } }],
  // What each gets is granted by the areas that own the resources (their manifests' permissions).
  builtinRoles: [
    { role_name: ADMIN_ROLE_NAME, description: 'Every permission', is_client_portal: false, base: 'all' },
    { role_name: 'Manager', description: 'Runs the service desk, projects and sales; no user or role administration', is_client_portal: false },
    { role_name: 'Technician', description: 'Works tickets, assets and project tasks', is_client_portal: false },
    { role_name: 'Finance', description: 'Billing, invoices, contracts and the accounting integration', is_client_portal: false },
    { role_name: 'Viewer', description: 'Read-only access to everything', is_client_portal: false, base: 'reads' },
    { role_name: 'Client Admin', description: 'Client portal administrator: sees and manages their own client only', is_client_portal: true },
    { role_name: 'Client User', description: 'Client portal user: reads and raises tickets for their own client', is_client_portal: true },
  ],
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createRolesModule(deps).routes }] }),
});
