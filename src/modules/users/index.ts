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

/** Users as other modules need them (look-ups, provisioning, sign-in, role changes). */
export { insertUser, findUserById, findUserByEmail, assignRole, revokeSessions, type UserRow } from './users.repo.ts';
export { hashPassword, verifyPassword } from './passwords.ts';
export { checkPassword, passwordViolation, PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, type PasswordRule } from './password-policy.ts';
export { recordActivity, ACTIVITY_TYPES, type ActivityType, type ActivityInput } from './activity.repo.ts';
export { assertAdminRemains } from './admins.ts';
export { avatarUrl } from './users.mapper.ts';
export { findAvatarEtag } from './avatar.repo.ts';
export { USER_EVENTS } from './users.events.ts';

/** Users: the user records, their password, preferences, activity log, avatar, and bulk operations. */
export function createUsersModule(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
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
  return { service, account, avatars, bulk, routes };
}
