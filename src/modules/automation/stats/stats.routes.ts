import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PerformanceQuery, PerformanceResponse, StatisticsResponse } from './stats.schemas.ts';
import type { StatsService } from './stats.service.ts';

const tags = ['Automation'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** Aggregates over the tenant's rules and executions. */
export const statsRoutes = (service: StatsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/automation/statistics', {
    schema: {
      operationId: 'getAutomationStatistics',
      tags,
      summary: 'Rule counts by status and execution totals, rates and the most used trigger and action types',
      querystring: NoQuery,
      response: { 200: StatisticsResponse },
    },
    config: { permission: 'automation:read' },
  }, async (req) => ({ data: await service.statistics(req.actor) }));

  app.get('/automation/performance', {
    schema: {
      operationId: 'getAutomationPerformance',
      tags,
      summary: 'Executions per hour, day, week or month (UTC): counts, success and error rates, mean duration, throughput',
      querystring: PerformanceQuery,
      response: { 200: PerformanceResponse },
    },
    config: { permission: 'automation:read' },
  }, (req) => service.performance(req.actor, req.query));
};
