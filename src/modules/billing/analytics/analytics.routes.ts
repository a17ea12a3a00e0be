import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BillingAnalyticsService } from './analytics.service.ts';
import { OverviewQuery, OverviewResponse } from './analytics.schemas.ts';
import { MAX_BUCKETS } from './revenue.periods.ts';
import { RevenueQuery, RevenueResponse } from './revenue.schemas.ts';

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

  app.get('/billing-analytics/revenue', {
    schema: {
      operationId: 'getBillingAnalyticsRevenue',
      tags,
      summary: 'Invoiced, collected, credited, outstanding and overdue money by period, per currency in integer cents',
      description: [
        'Computed from invoices, payments and credit notes at request time, never cached; summed by the database per currency and bucket,',
        'never across currencies. Buckets are calendar months, quarters or years (`interval`, default month) clipped to [from, to];',
        `every bucket is listed (zeros included) for each currency with any figure in the range; at most ${MAX_BUCKETS} buckets (else a 400).`,
        '`to` defaults to today (UTC), `from` to the first day of the month 11 months before `to`\'s month.',
        'invoiced_cents: Σ total_cents of invoices whose status is neither draft nor void, by issue_date; invoice_count: those invoices.',
        'collected_cents: Σ payment amounts (cash received, over-payments included) by payment_date, in the payment\'s currency.',
        'credited_cents: Σ credit note amounts by the credit note\'s issue_date.',
        'outstanding_cents: Σ balance_cents as of now of invoices that are finalized, sent or partially_paid, by issue_date;',
        'overdue_cents: the part of it whose due_date is before today (UTC).',
        'A client-portal key is scoped to its own client; a client_id that is not the tenant\'s (or not the portal key\'s client) is a 404;',
        '`from` after `to` and an unknown currency_code are 400s.',
      ].join(' '),
      querystring: RevenueQuery,
      response: { 200: RevenueResponse },
    },
    config: { permission: 'billing:read' },
  }, async (req) => ({ data: await service.revenue(req.actor, req.query) }));
};
