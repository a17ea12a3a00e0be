import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SearchQuery, SearchResponse } from './search.schemas.ts';
import type { SearchService } from './search.service.ts';

export const searchRoutes = (service: SearchService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/search', {
    schema: {
      operationId: 'search',
      tags: ['Search'],
      summary: 'Full-text search across every record type the caller may read; keyset-paged with nextCursor',
      description: [
        'The last word matches as a prefix from 3 characters (proj finds projector), the others as whole words (with English stemming: printers finds printer).',
        'When nothing matches as typed, an earlier word that only begins words of the tenant\'s is read as a prefix too, and misspelt words are corrected against the tenant\'s own words.',
        'Ranking (score): identifier exact 1000, identifier prefix 900, every word in the title 700, every word in the title or subtitle 500,',
        'anywhere else (body) 300; a typo-corrected query scores a tenth. Within a score, newest updatedAt first, then type and id.',
        'groups and totalCount count only rows the caller may open, over all pages. They are exact up to 1,000 matches per type;',
        'a type with more reports 1,000 and countsExact is false (totalCount is then a lower bound). Paging is not capped: the cursor reaches every match.',
      ].join(' '),
      querystring: SearchQuery,
      response: { 200: SearchResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.search(req.actor, req.query) }));
};
