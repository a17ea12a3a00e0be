import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import { AssetSearchResponse, AssetStatsResponse, AssetSummaryResponse, ExportQuery, SearchAssetsQuery, StatsQuery } from './reports.schemas.ts';
import type { ReportsService } from './reports.service.ts';

const tags = ['Assets'];

export const reportsRoutes = (service: ReportsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/assets/export', {
    schema: {
      operationId: 'exportAssets',
      tags,
      summary: 'Export every asset matching the list filters as CSV (default) or JSON, streamed',
      querystring: ExportQuery,
      response: {
        200: {
          description: 'CSV (header row, RFC 4180 quoting, formula-safe) or JSON {data: [...]}',
          content: {
            'text/csv': { schema: { type: 'string' } },
            'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: { type: 'object' } } } } },
          },
        },
      },
    },
    config: { permission: 'asset:read' },
  }, async (req, reply) => {
    const out = await service.export(req.actor, req.query);
    const raw = reply as unknown as FastifyReply;
    const ext = req.query.format === 'json' ? 'json' : 'csv';
    raw.header('Content-Disposition', `attachment; filename="assets.${ext}"`);
    raw.header('Cache-Control', 'no-store');
    return raw.type(out.contentType).send(out.stream);
  });

  app.get('/assets/search', {
    schema: { operationId: 'searchAssets', tags, summary: 'Find assets by name, tag, serial number, location or client name (best matches first)', querystring: SearchAssetsQuery, response: { 200: AssetSearchResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.search(req.actor, req.query) }));

  app.get('/assets/stats', {
    schema: { operationId: 'getAssetStats', tags, summary: 'Asset counts by status, type, warranty status and client, for the list filters', querystring: StatsQuery, response: { 200: AssetStatsResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.stats(req.actor, req.query) }));

  app.get('/assets/:id/summary', {
    schema: { operationId: 'getAssetSummary', tags, summary: 'Health, open linked tickets, warranty, maintenance outlook and RMM agent status of one asset', params: IdParams, querystring: NoQuery, response: { 200: AssetSummaryResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.summary(req.actor, req.params.id) }));
};
