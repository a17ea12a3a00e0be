import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { ReportsService } from './reports.service.ts';
import { ExportProjectsQuery, SearchProjectsQuery, SearchResponse, StatsQuery, StatsResponse } from './reports.schemas.ts';

const tags = ['Projects'];

export const reportsRoutes = (service: ReportsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/export', {
    schema: {
      operationId: 'exportProjects',
      tags,
      summary: 'Export the projects matching the list filters as CSV (header row, RFC 4180 quoting, formulas neutralised) or JSON, streamed as a download',
      querystring: ExportProjectsQuery,
      response: { 200: Type.Unsafe<Readable>({ type: 'string', description: 'text/csv (one row per project, project-number order) or application/json ({"data": [project, …]})' }) },
    },
    config: { permission: 'project:read' },
  }, async (req, reply) => {
    const { stream, contentType, filename } = await service.exportProjects(req.actor, req.query);
    reply
      .header('Content-Type', contentType)
      .header('Content-Disposition', `attachment; filename="${filename}"`)
      .header('Cache-Control', 'no-store');
    return stream;
  });

  app.get('/projects/search', {
    schema: {
      operationId: 'searchProjects',
      tags,
      summary: 'Free-text search of projects by name, number, description and client name (exact number first, then name prefix, then name); paginated',
      querystring: SearchProjectsQuery,
      response: { 200: SearchResponse },
    },
    config: { permission: 'project:read' },
  }, (req) => service.search(req.actor, req.query));

  app.get('/projects/stats', {
    schema: {
      operationId: 'getProjectStats',
      tags,
      summary: 'Counts of the projects matching the list filters: by status, open/closed, overdue, and budgeted, estimated and actual hour totals',
      querystring: StatsQuery,
      response: { 200: StatsResponse },
    },
    config: { permission: 'project:read' },
  }, async (req) => ({ data: await service.stats(req.actor, req.query) }));
};
