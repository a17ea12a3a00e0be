import { installPermissionCatalogue } from '../auth/permissions.ts';
import { installEventVocabulary } from '../events/vocabulary.ts';
import { installSearchIndexers } from '../search/registry.ts';
import type { ModuleManifest } from './module.ts';

/**
 * Installs the static part of the manifests into the platform's registries: the permission catalogue
 * and built-in roles, the event vocabulary, the search indexers. Idempotent for the same list.
 */
export function installManifests(modules: readonly ModuleManifest<never, never>[]): void {
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`module ${m.name} is listed twice`);
    names.add(m.name);
  }
  installPermissionCatalogue(modules.flatMap((m) => m.permissions ?? []), modules.flatMap((m) => m.builtinRoles ?? []));
  installEventVocabulary(modules.flatMap((m) => (m.events ? [m.events] : [])));
  installSearchIndexers(modules.flatMap((m) => m.searchIndexers ?? []));
}
