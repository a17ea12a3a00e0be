/**
 * The permission catalogue (`resource:action`) and the built-in roles every tenant gets. Areas declare
 * the resources they own in their manifests, each with what every built-in role gets of it; the roles
 * area declares the built-in roles themselves. The composition root installs both here before anything
 * runs. Route configs name one of these; the route-contract test rejects names not listed.
 */

export const CRUD = ['create', 'read', 'update', 'delete'] as const;

/** A resource an area owns, its actions, and the actions each built-in role (by name) gets of it. */
export interface PermissionGrant {
  resource: string;
  actions: readonly string[];
  roles?: Readonly<Record<string, readonly string[]>>;
}

export interface BuiltinRoleInfo {
  role_name: string;
  description: string;
  is_client_portal: boolean;
  /** Besides the areas' grants: every permission (`all`) or every read permission (`reads`). */
  base?: 'all' | 'reads';
}

export interface BuiltinRole {
  role_name: string;
  description: string;
  is_client_portal: boolean;
  permissions: readonly string[];
}

let resources: readonly PermissionGrant[] = [];
let all: readonly string[] = [];
let known = new Set<string>();
let roles: readonly BuiltinRole[] = [];
let installed = false;

/** Reading the catalogue before the module list installed it would seed tenants without roles: a loud failure instead. */
function assertInstalled(): void {
  if (!installed) throw new Error('the permission catalogue is not installed: import src/modules.ts (the module list) first');
}

/** Installs the catalogue from the manifests (resources in manifest order) and derives the built-in roles. */
export function installPermissionCatalogue(grants: readonly PermissionGrant[], roleInfos: readonly BuiltinRoleInfo[]): void {
  const byResource = new Map<string, PermissionGrant>();
  for (const g of grants) {
    if (byResource.has(g.resource)) throw new Error(`permission resource ${g.resource} is declared twice`);
    byResource.set(g.resource, g);
    for (const [role, actions] of Object.entries(g.roles ?? {})) {
      if (!roleInfos.some((r) => r.role_name === role)) throw new Error(`${g.resource} grants to unknown built-in role ${role}`);
      const stray = actions.filter((a) => !g.actions.includes(a));
      if (stray.length > 0) throw new Error(`${g.resource} grants ${role} unknown action(s) ${stray.join(', ')}`);
    }
  }
  const list = grants.flatMap((g) => g.actions.map((a) => `${g.resource}:${a}`));
  resources = grants;
  all = list;
  known = new Set(list);
  installed = true;
  roles = roleInfos.map((info) => {
    const granted = new Set(grants.flatMap((g) => (g.roles?.[info.role_name] ?? []).map((a) => `${g.resource}:${a}`)));
    const base = (p: string) => info.base === 'all' || (info.base === 'reads' && p.endsWith(':read'));
    return {
      role_name: info.role_name,
      description: info.description,
      is_client_portal: info.is_client_portal,
      permissions: list.filter((p) => base(p) || granted.has(p)),
    };
  });
}

/** Every resource with its actions, in catalogue order. */
export const permissionResources = (): readonly { resource: string; actions: readonly string[] }[] => (assertInstalled(), resources);
/** Every permission, in catalogue order. */
export const allPermissions = (): readonly string[] => (assertInstalled(), all);
export const isPermission = (p: string): boolean => (assertInstalled(), known.has(p));
/** The built-in roles with their permissions, as a new tenant gets them. */
export const builtinRoles = (): readonly BuiltinRole[] => (assertInstalled(), roles);
