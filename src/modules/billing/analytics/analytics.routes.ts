import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BillingAnalyticsService } from './analytics.service.ts';
import { OverviewQuery, OverviewResponse } from './analytics.schemas.ts';

/** /billing-analytics: figures computed from the tenant's contracts at request time. Money is integer cents per currency. */
export const billingAnalyticsRoutes = (service: BillingAnalyticsService): FastifyPluginAsyncTypebox => async (app) => {
  const tags = ['Billing analytics'];
  app.get('/billing-analytics/overview', {
    schema: {
      operationId: 'getBillingAnalyticsOverview',
      tags,
      summary: 'Contract, line and monthly recurring revenue figures, per currency in integer cents',
      description: [
        'Computed from data at request time, never cached. Contracts are in scope when they belong to the tenant (and to client_id if given)',
        'and [start_date, end_date or open-ended] overlaps [from, to]; a client-portal key is scoped to its own client.',
        'Revenue rows are attachments of in-scope active contracts to active fixed lines; a row\'s rate is the attachment\'s custom_rate_cents,',
        'else the line\'s base_rate_cents, and its monthly value is rate × periods per year of the line\'s billing_frequency',
        '(weekly 52, bi-weekly 26, monthly 12, quarterly 4, semi-annually 2, annually 1) / 12.',
        'Sums are exact, rounded once half-to-even, per currency (never summed across currencies).',
        '`from` after `to` is a 400; a client_id that is not the tenant\'s (or not the portal key\'s client) is a 404.',
      ].join(' '),
      querystring: OverviewQuery,
      response: { 200: OverviewResponse },
    },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.overview(req.actor, req.query) }));
};
