import type { SearchIndexer, SearchType } from './search.types.ts';

/**
 * The indexer of every searchable type that exists. Adding an area's records to search is one
 * indexer file next to the area plus one line here.
 */
export const SEARCH_INDEXERS: Partial<Record<SearchType, SearchIndexer>> = {};
