import type { SearchIndexer } from './types.ts';

/**
 * The indexer of each searchable record type, installed from the module manifests by the composition
 * root (src/modules.ts) before anything runs. Process-wide because every write of an indexed record
 * syncs the index by type name, from any area, without importing the area that owns the type.
 */
const indexers = new Map<string, SearchIndexer>();
let installed = false;

/** A lookup before the module list installed the indexers would silently skip index writes: a loud failure instead. */
function assertInstalled(): void {
  if (!installed) throw new Error('the search indexers are not installed: import src/modules.ts (the module list) first');
}

export function installSearchIndexers(list: readonly SearchIndexer[]): void {
  const next = new Map<string, SearchIndexer>();
  for (const indexer of list) {
    if (next.has(indexer.type)) throw new Error(`search type ${indexer.type} has two indexers`);
    next.set(indexer.type, indexer);
  }
  indexers.clear();
  for (const [type, indexer] of next) indexers.set(type, indexer);
  installed = true;
}

/** The indexer of a type; a type no installed module indexes has none. */
export const searchIndexerOf = (type: string): SearchIndexer | undefined => (assertInstalled(), indexers.get(type));

/** Every indexed type, in manifest order. */
export const indexedSearchTypes = (): string[] => (assertInstalled(), [...indexers.keys()]);
