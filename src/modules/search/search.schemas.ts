import { Type, type Static } from 'typebox';
import { Id, Timestamp } from '../../platform/http/schemas.ts';
import { SEARCH_TYPES, type SearchType } from './search.types.ts';

export const SearchQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 200, description: 'Free text, 1–200 characters; websearch syntax ("phrase", OR, -word); identifiers such as T-000123 rank first' }),
  types: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 600,
    description: `Comma-separated types to search (default all): ${SEARCH_TYPES.join(', ')}`,
  })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 30 })),
  // Room for a typo-corrected query of 8 words of 64 letters (up to 4 bytes each), which the cursor carries.
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'nextCursor of the previous page; query, types and sort must be unchanged' })),
  sort: Type.Optional(Type.Union([Type.Literal('relevance'), Type.Literal('recent')], { default: 'relevance' })),
}, { additionalProperties: false });
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchResult = Type.Object({
  type: Type.Unsafe<SearchType>({ type: 'string', enum: [...SEARCH_TYPES] }),
  id: Id,
  parentId: Type.Optional(Id),
  title: Type.String(),
  subtitle: Type.Optional(Type.String()),
  snippet: Type.Optional(Type.String({ description: 'HTML-escaped excerpt with the matched terms in <mark> tags' })),
  url: Type.String({ description: 'Relative in-app URL' }),
  score: Type.Number(),
  updatedAt: Timestamp,
}, { additionalProperties: false });
export type SearchResult = Static<typeof SearchResult>;

export const SearchPage = Type.Object({
  results: Type.Array(SearchResult),
  groups: Type.Record(Type.String(), Type.Integer(), { description: 'Matches per searched type over all pages (types the caller cannot read are absent), exact up to the count cap (1,000) and the cap above it (see countsExact)' }),
  totalCount: Type.Integer({ description: 'Sum of groups: exact when countsExact, else a lower bound' }),
  countsExact: Type.Boolean({ description: 'False when a type had more matches than the count cap (1,000 per type): its group then reports the cap, a lower bound. Always true for a client-portal key (its search reads only its client\'s rows)' }),
  nextCursor: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type SearchPage = Static<typeof SearchPage>;

export const SearchResponse = Type.Object({ data: SearchPage });
