import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { KeyCache } from '../../platform/auth/key-cache.ts';
import type { DB } from '../../platform/db/schema.ts';
import { accountRoutes } from './account.routes.ts';
import { createAccountService } from './account.service.ts';
import { avatarRoutes } from './avatar.routes.ts';
import { createAvatarService } from './avatar.service.ts';
import { bulkRoutes } from './bulk.routes.ts';
import { createBulkService } from './bulk.service.ts';
import { usersRoutes } from './users.routes.ts';
import { createUsersService } from './users.service.ts';
import { CRUD } from '../../platform/auth/permissions.ts';
import { defineModule, V1 } from '../deps.ts';
import { userSearchIndexer } from './users.search.ts';
import { UserLifecycle } from './lifecycle.ts';

/** Users as other modules need them (look-ups, provisioning, sign-in, role changes). */
export { insertUser, findUserById, findUserByEmail, touchUser } from './directory.service.ts';
export type { UserRow } from './users.repo.ts';
export {
  recordLoginFailure,
  recordLoginSuccess,
  setPendingTwoFactorSecret,
  activateTwoFactorSecret,
  clearTwoFactorSecrets,
  claimTotpStep,
} from './security.service.ts';
export { hashPassword, verifyPassword } from './passwords.ts';
export { checkPassword, passwordViolation, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, type PasswordRule } from './password-policy.ts';
export { recordActivity } from './activity.service.ts';
export { ACTIVITY_TYPES, type ActivityType, type ActivityInput } from './activity.repo.ts';
export { assertAdminRemains } from './admins.ts';
export { avatarUrl } from './users.mapper.ts';
export type { UserLifecycle, UserHook } from './lifecycle.ts';
/** The users area's service API (what `deps.services('users')` returns). */
export type UsersApi = ReturnType<typeof createUsersModule>;
export { USER_EVENTS } from './users.events.ts';

/** Users: the user records, their password, preferences, activity log, avatar, and bulk operations. */
export function createUsersModule(base: { db: Kysely<DB>; keyCache: KeyCache }) {
  const lifecycle = new UserLifecycle();
  const deps = { ...base, lifecycle };
  const service = createUsersService(deps);
  const account = createAccountService(deps);
  const avatars = createAvatarService(deps);
  const bulk = createBulkService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(usersRoutes(service));
    await app.register(accountRoutes(account));
    await app.register(bulkRoutes(bulk));
    await app.register(avatarRoutes(avatars));
  };
  return { service, account, avatars, bulk, lifecycle, routes };
}

export const usersModule = defineModule({
  name: 'users',
  permissions: [{ resource: 'user', actions: CRUD, roles: { Manager: ['read'], Technician: ['read'], Finance: ['read'] } }],
  searchIndexers: [userSearchIndexer],
  build: (deps) => {
    const users = createUsersModule(deps);
    return { api: users, routes: [{ prefix: V1, plugin: users.routes }] };
  },
});
