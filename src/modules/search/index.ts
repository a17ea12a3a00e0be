import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { CursorMac } from '../../platform/crypto/signed-token.ts';
import { searchRoutes } from './search.routes.ts';
import { createSearchService } from './search.service.ts';
import { defineModule, V1 } from '../deps.ts';

/**
 * Unified search: the query endpoint and the re-index command. The index itself is written by the
 * platform (platform/search: areas call `syncSearch(trx, tenant, type, ids)` after each write of an
 * indexed record, and list one indexer per record type in their manifests).
 */
export { reindexSearch, type ReindexCounts } from './reindex.ts';
export { searchReindexCommand } from './reindex.cli.ts';
export { createSearchService, type SearchService } from './search.service.ts';
export { SEARCH_TYPES, type SearchType } from './search.types.ts';
export type { SearchQuery, SearchPage } from './search.schemas.ts';

/** GET /api/v1/search. `cursorMac` (the app's SecretBox) signs the paging cursors. */
export function createSearchModule(deps: { db: Kysely<DB>; cursorMac: CursorMac }) {
  const service = createSearchService(deps);
  return { service, routes: searchRoutes(service) };
}

export const searchModule = defineModule({
  name: 'search',
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createSearchModule({ db: deps.db, cursorMac: deps.secretBox }).routes }] }),
});
