import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { notifyAuthChange, type KeyCache } from '../../platform/auth/key-cache.ts';
import { permissionResources } from '../../platform/auth/permissions.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { conflict, notFound, validation } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { listPage } from '../../platform/http/list.ts';
import { newId } from '../../platform/ids.ts';
import { ROLE_EVENTS, emitRoleEvent } from './roles.events.ts';
import { sortedPermissions, toRole } from './roles.mapper.ts';
import {
  deleteRole,
  findRoleIdByName,
  findRoleView,
  insertRole,
  lockRole,
  replaceRolePermissions,
  roleList,
  updateRole,
  type RoleViewRow,
} from './roles.repo.ts';
import { clientPortalPermissions, assertCanGrant, assertKnownPermissions, assertPortalSafe } from './roles.rules.ts';
import type { CreateRoleBody, ListRolesQuery, Role, UpdateRoleBody } from './roles.schemas.ts';



async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findRoleIdByName(trx, tenant, name);
  if (existing && existing !== self) {
    throw conflict(`A role named '${name}' already exists (names are unique regardless of case)`, { role_id: existing });
  }
}

/** The permission catalogue grouped by resource, in catalogue order. */
export function permissionCatalogue() {
  const portal = clientPortalPermissions();
  return permissionResources().map(({ resource, actions }) => {
    const permissions = actions.map((a) => `${resource}:${a}`);
    return { resource, actions: [...actions], permissions, client_portal_allowed: permissions.filter((p) => portal.has(p)) };
  });
}

export function createRolesService(deps: { db: Kysely<DB>; keyCache: KeyCache }) {
  const { db, keyCache } = deps;

  const view = async (executor: Kysely<DB> | Transaction<DB>, tenant: string, id: string): Promise<RoleViewRow> => {
    const row = await findRoleView(executor, tenant, id);
    if (!row) throw notFound('Role', id);
    return row;
  };

  /** Locks the role and refuses built-in ones: they are the same in every tenant and kept by the platform. */
  const lockEditable = async (trx: Transaction<DB>, actor: Actor, id: string, ifMatch: string | undefined, what: string): Promise<RoleViewRow> => {
    if (!(await lockRole(trx, actor.tenant, id))) throw notFound('Role', id);
    const current = await view(trx, actor.tenant, id);
    assertIfMatch(ifMatch, toRole(current));
    if (current.is_builtin) throw conflict(`'${current.role_name}' is a built-in role and cannot be ${what}; create a role (copy_from_role_id) instead`, { role_id: id });
    return current;
  };

  return {
    async list(actor: Actor, query: ListRolesQuery) {
      const filter = { isClientPortal: query.is_client_portal, isBuiltin: query.is_builtin, search: query.search?.trim() || undefined };
      return listPage(query, roleList(db, actor.tenant, filter), (rows) => rows.map(toRole));
    },

    async get(actor: Actor, id: string): Promise<Role> {
      return toRole(await view(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateRoleBody): Promise<Role> {
      const name = requiredText(body.role_name, 'body.role_name');
      if (body.permissions !== undefined && body.copy_from_role_id !== undefined) {
        throw validation('body.copy_from_role_id', 'send either permissions or copy_from_role_id, not both');
      }
      if (body.permissions) assertKnownPermissions(body.permissions, 'body.permissions');
      return withTransaction(db, async (trx) => {
        let permissions = body.permissions ?? [];
        let isClientPortal = body.is_client_portal;
        if (body.copy_from_role_id !== undefined) {
          const source = await findRoleView(trx, actor.tenant, body.copy_from_role_id);
          if (!source) throw validation('body.copy_from_role_id', `no role '${body.copy_from_role_id}' in this tenant`);
          permissions = source.permissions;
          isClientPortal ??= source.is_client_portal;
        }
        permissions = sortedPermissions(permissions);
        isClientPortal ??= false;
        assertPortalSafe(permissions, isClientPortal);
        assertCanGrant(actor, permissions);
        await assertNameFree(trx, actor.tenant, name);
        const roleId = newId();
        const now = new Date();
        await insertRole(trx, {
          tenant: actor.tenant,
          role_id: roleId,
          role_name: name,
          description: optionalText(body.description) ?? null,
          is_builtin: false,
          is_client_portal: isClientPortal,
          created_at: now,
          updated_at: now,
        });
        await replaceRolePermissions(trx, actor.tenant, roleId, permissions);
        await emitRoleEvent(trx, actor.tenant, ROLE_EVENTS.created, roleId, body.copy_from_role_id ? { copied_from_role_id: body.copy_from_role_id } : {});
        return toRole(await view(trx, actor.tenant, roleId));
      });
    },

    /** Partial update; a new permission list applies to every key of every holder at once. */
    async update(actor: Actor, id: string, body: UpdateRoleBody, ifMatch?: string): Promise<Role> {
      const name = body.role_name === undefined ? undefined : requiredText(body.role_name, 'body.role_name');
      if (body.permissions) assertKnownPermissions(body.permissions, 'body.permissions');
      let permissionsChanged = false;
      const role = await withTransaction(db, async (trx) => {
        const current = await lockEditable(trx, actor, id, ifMatch, 'changed');
        const changed: string[] = [];
        const set: { role_name?: string; description?: string | null } = {};
        if (name !== undefined && name !== current.role_name) {
          await assertNameFree(trx, actor.tenant, name, id);
          set.role_name = name;
          changed.push('role_name');
        }
        const description = optionalText(body.description);
        if (description !== undefined && description !== current.description) {
          set.description = description;
          changed.push('description');
        }
        if (body.permissions !== undefined) {
          const next = sortedPermissions(body.permissions);
          const before = sortedPermissions(current.permissions);
          if (next.join(',') !== before.join(',')) {
            assertPortalSafe(next, current.is_client_portal);
            // Adding needs the added permissions; removing only needs role:update.
            assertCanGrant(actor, next.filter((p) => !before.includes(p)));
            await replaceRolePermissions(trx, actor.tenant, id, next);
            changed.push('permissions');
            permissionsChanged = true;
          }
        }
        if (changed.length === 0) return toRole(current);
        await updateRole(trx, actor.tenant, id, { ...set, updated_at: new Date() });
        await emitRoleEvent(trx, actor.tenant, ROLE_EVENTS.updated, id, { changed_fields: changed });
        if (permissionsChanged) await notifyAuthChange(trx, actor.tenant);
        return toRole(await view(trx, actor.tenant, id));
      });
      if (permissionsChanged) keyCache.invalidateTenant(actor.tenant);
      return role;
    },

    /** Refused for built-in roles and while any user (active or not) holds the role. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await lockEditable(trx, actor, id, ifMatch, 'deleted');
        if (current.user_count > 0) {
          throw conflict(`Role '${current.role_name}' is still assigned to ${current.user_count} user(s); remove it from them first`, {
            role_id: id,
            user_count: Number(current.user_count),
          });
        }
        await deleteRole(trx, actor.tenant, id);
        await emitRoleEvent(trx, actor.tenant, ROLE_EVENTS.deleted, id, { role_name: current.role_name });
        await notifyAuthChange(trx, actor.tenant);
      });
      keyCache.invalidateTenant(actor.tenant);
    },
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
