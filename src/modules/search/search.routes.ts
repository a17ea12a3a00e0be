import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SearchQuery, SearchResponse } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';

export const searchRoutes = (service: SearchService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/search', {
    schema: {
      operationId: 'search',
      tags: ['Search'],
      summary: 'Full-text search across every record type the caller may read (identifiers first, then title, subtitle and body matches; typo-tolerant fallback); keyset-paged with nextCursor',
      querystring: SearchQuery,
      response: { 200: SearchResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.search(req.actor, req.query) }));
};
