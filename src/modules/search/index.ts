import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { CursorMac } from './search.cursor.ts';
import { searchRoutes } from './search.routes.ts';
import { createSearchService } from './search.service.ts';

/**
 * Unified search. Areas call `syncSearch(trx, tenant, type, ids)` after each write of an indexed record
 * and contribute one indexer (`SearchIndexer`, importing only types from here plus the helpers in
 * platform/search/indexing.ts) registered in indexers.ts.
 */
export { syncSearch, removeFromSearch, upsertSearchDocuments } from './sync.ts';
export { reindexSearch, type ReindexCounts } from './reindex.ts';
export { searchReindexCommand } from './reindex.cli.ts';
export { createSearchService, type SearchService } from './search.service.ts';
export { SEARCH_TYPES, type SearchDocument, type SearchIndexer, type SearchType } from './search.types.ts';
export type { SearchQuery, SearchPage } from './search.schemas.ts';

/** GET /api/v1/search. `cursorMac` (the app's SecretBox) signs the paging cursors. */
export function createSearchModule(deps: { db: Kysely<DB>; cursorMac: CursorMac }) {
  const service = createSearchService(deps);
  return { service, routes: searchRoutes(service) };
}
