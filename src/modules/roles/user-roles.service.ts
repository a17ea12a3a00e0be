import type { Kysely, Transaction } from 'kysely';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import { notifyAuthChange, type KeyCache } from '../../platform/auth/key-cache.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { notFound, validation } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { UUID_RE } from '../../platform/ids.ts';
import { assertAdminRemains, recordActivity, touchUser } from '../users/index.ts';
import { emitUserRolesChanged } from './roles.events.ts';
import { byRoleName, sortedPermissions, toAssignedRole } from './roles.mapper.ts';
import { findRolesByIds, permissionsOfRoles } from './roles.repo.ts';
import { ADMIN_ROLE_NAME, assertCanGrant, assertRolesFitUser } from './roles.rules.ts';
import {
  addUserRoles,
  findUserHead,
  removeUserRoles,
  rolesOfUser,
  rolesOfUsers,
  userRolesList,
  type HeldRole,
  type UserHead,
} from './user-roles.repo.ts';
import type { AssignedRole, ListUserRolesQuery, UserWithRoles } from './user-roles.schemas.ts';

type Mode = 'add' | 'replace' | 'remove';

const mapRoles = (roles: HeldRole[]): AssignedRole[] => roles.map(toAssignedRole).sort(byRoleName);

/** Reading another user's roles or permissions needs user:read; your own never does. */
function assertCanRead(actor: Actor, userId: string): void {
  if (userId !== actor.userId) requirePermission(actor, 'user:read');
}

/** The role ids of a DELETE: from its JSON body or its `role_ids` query parameter, exactly one of them. */
export function removalIds(bodyIds: string[] | undefined, queryIds: string | undefined): string[] {
  if (bodyIds !== undefined && queryIds !== undefined) throw validation('query.role_ids', 'send role_ids in the body or in the query, not both');
  if (bodyIds !== undefined) return bodyIds;
  if (queryIds === undefined) throw validation('body.role_ids', 'is required (in the JSON body, or as the comma-separated role_ids query parameter)');
  const ids = queryIds.split(',');
  const bad = ids.filter((id) => !UUID_RE.test(id));
  if (bad.length > 0) throw validation('query.role_ids', `not UUIDs: ${bad.join(', ')}`);
  if (new Set(ids).size !== ids.length) throw validation('query.role_ids', 'must not repeat an id');
  if (ids.length > 100) throw validation('query.role_ids', 'at most 100 ids');
  return ids;
}

export function createUserRolesService(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const { db, keyCache } = deps;

  const user = async (executor: Kysely<DB> | Transaction<DB>, tenant: string, userId: string, lock = false): Promise<UserHead> => {
    const row = await findUserHead(executor, tenant, userId, lock);
    if (!row) throw notFound('User', userId);
    return row;
  };

  /** Adds, replaces or removes roles of a user in one transaction; a no-op changes (and records) nothing. */
  const change = async (actor: Actor, userId: string, mode: Mode, ids: () => string[], ifMatch?: string): Promise<AssignedRole[]> => {
    let changed = false;
    const result = await withTransaction(db, async (trx) => {
      const target = await user(trx, actor.tenant, userId, true);
      const roleIds = ids();
      const current = await rolesOfUser(trx, actor.tenant, userId);
      assertIfMatch(ifMatch, mapRoles(current));

      const named = await findRolesByIds(trx, actor.tenant, roleIds);
      const unknown = roleIds.filter((id) => !named.some((r) => r.role_id === id));
      if (unknown.length > 0) throw validation('body.role_ids', `Invalid role_ids for this tenant: ${unknown.join(', ')}`);

      const held = new Set(current.map((r) => r.role_id));
      const given = new Set(roleIds);
      const added = mode === 'remove' ? [] : named.filter((r) => !held.has(r.role_id));
      const removed = mode === 'add' ? [] : current.filter((r) => (mode === 'replace' ? !given.has(r.role_id) : given.has(r.role_id)));
      if (mode !== 'remove') assertRolesFitUser(target, named);
      assertCanGrant(actor, await permissionsOfRoles(trx, actor.tenant, added.map((r) => r.role_id)));
      if (added.length === 0 && removed.length === 0) return mapRoles(current);

      if (removed.some((r) => r.is_builtin && r.role_name === ADMIN_ROLE_NAME)) {
        await assertAdminRemains(trx, actor.tenant, [userId], `Removing the ${ADMIN_ROLE_NAME} role from user '${userId}'`);
      }
      await removeUserRoles(trx, actor.tenant, userId, removed.map((r) => r.role_id));
      await addUserRoles(trx, actor.tenant, userId, added.map((r) => r.role_id));
      await touchUser(trx, actor.tenant, userId, new Date());
      await recordActivity(trx, {
        tenant: actor.tenant,
        user_id: userId,
        actor_user_id: actor.userId,
        activity_type: 'role_change',
        details: { added: added.map((r) => r.role_name).sort(), removed: removed.map((r) => r.role_name).sort() },
      });
      await emitUserRolesChanged(trx, actor.tenant, userId, added.map((r) => r.role_id), removed.map((r) => r.role_id));
      await notifyAuthChange(trx, actor.tenant);
      changed = true;
      return mapRoles(await rolesOfUser(trx, actor.tenant, userId));
    });
    if (changed) keyCache.invalidateTenant(actor.tenant);
    return result;
  };

  return {
    async roles(actor: Actor, userId: string): Promise<AssignedRole[]> {
      assertCanRead(actor, userId);
      await user(db, actor.tenant, userId);
      return mapRoles(await rolesOfUser(db, actor.tenant, userId));
    },

    /** The union of the permissions of the user's roles (what an unscoped key of theirs would carry). */
    async permissions(actor: Actor, userId: string): Promise<string[]> {
      assertCanRead(actor, userId);
      await user(db, actor.tenant, userId);
      const roles = await rolesOfUser(db, actor.tenant, userId);
      return sortedPermissions(await permissionsOfRoles(db, actor.tenant, roles.map((r) => r.role_id)));
    },

    add: (actor: Actor, userId: string, roleIds: string[]) => change(actor, userId, 'add', () => roleIds),
    replace: (actor: Actor, userId: string, roleIds: string[], ifMatch?: string) => change(actor, userId, 'replace', () => roleIds, ifMatch),
    /** The ids are resolved after the user is found, so an unknown user is a 404 whatever the input. */
    remove: (actor: Actor, userId: string, bodyIds: string[] | undefined, queryIds: string | undefined, ifMatch?: string) =>
      change(actor, userId, 'remove', () => removalIds(bodyIds, queryIds), ifMatch),

    async listUsers(actor: Actor, query: ListUserRolesQuery) {
      const filter = { search: query.search?.trim() || undefined, isInactive: query.is_inactive };
      return listPage(query, userRolesList(db, actor.tenant, filter), async (rows): Promise<UserWithRoles[]> => {
        const roles = await rolesOfUsers(db, actor.tenant, rows.map((r) => r.user_id));
        return rows.map((u) => ({
          user_id: u.user_id,
          username: u.username,
          email: u.email,
          first_name: u.first_name,
          last_name: u.last_name,
          is_inactive: u.is_inactive,
          roles: (roles.get(u.user_id) ?? []).sort(byRoleName).map((r) => ({ role_id: r.role_id, role_name: r.role_name, description: r.description })),
        }));
      });
    },
  };
}

export type UserRolesService = ReturnType<typeof createUserRolesService>;
