import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { CalibrationResponse, ForecastResponse, NoQuery, PeriodQuery, RollupsResponse, WorkQueueResponse } from './management.schemas.ts';
import { createManagementService, type ManagementService } from './management.service.ts';
import { meetingsRoutes } from './meetings.routes.ts';
import { createMeetingsService } from './meetings.service.ts';

const tags = ['Opportunities'];

/** Read-only management views of the pipeline, computed at request time. Money is integer cents per currency, never summed across currencies. */
export const managementRoutes = (service: ManagementService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/opportunities/forecast', {
    schema: {
      operationId: 'getOpportunityForecast',
      tags,
      summary: 'The forecast band (floor and ceiling per currency) of deals closing in a period, with each deal\'s contribution',
      description: [
        'Deals: open deals whose expected_close_date is in [start, end] and deals won in the period (won_at on a UTC day from start to end).',
        'Weight: 1 for a won deal (weight_source won); for an open deal, the rate of its stage — identified 0.05, qualified 0.15, assessment 0.35,',
        'proposed 0.50, verbal 0.80 (weight_source base) — or, once its owner has closed at least 20 deals (won + lost), the owner\'s own rate for',
        'that stage: won / closed among the owner\'s closed deals whose stage at close was that stage (weight_source seller_calibration; a stage with',
        'no closed deals keeps the base rate). The stage at close is the highest uncorrected checkpoint other than won recorded at or before',
        'won_at/lost_at (identified when none).',
        'One-time value = nrr_cents + hardware_cents. Each deal\'s weighted amounts are its amounts × its exact rate, rounded half-to-even to whole',
        'cents (weight shows the rate with 4 decimals). Per currency (never across currencies): floor = the full amounts of won deals and open',
        'deals at verbal (in_floor); ceiling = floor + the sum of the rounded weighted amounts of the other deals — totals are sums of the',
        'rounded per-deal values. start after end, or a period over 5 years, is a 400.',
      ].join(' '),
      querystring: PeriodQuery,
      response: { 200: ForecastResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.forecast(req.actor, req.query) }));

  app.get('/opportunities/calibration', {
    schema: {
      operationId: 'getOpportunityCalibration',
      tags,
      summary: 'Per seller with closed deals: stage rates (own once 20+ closed), close rate by declared confidence, new-logo attach rate',
      description: [
        'One entry per owner of at least one won or lost deal (all time), by seller_name. calibrated = closed_deal_count ≥ 20.',
        'stage_rates: per ladder stage, the owner\'s closed deals whose stage at close (highest uncorrected non-won checkpoint recorded at or',
        'before the close; identified when none) was that stage, the won ones, and the rate the forecast uses.',
        'attach_rate: won new_logo deals, and those whose client has a contract beyond draft starting 0–60 days after the win day (UTC dates).',
        'Rates have at most 4 decimals (half-to-even) and are null when nothing is counted.',
      ].join(' '),
      querystring: NoQuery,
      response: { 200: CalibrationResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.calibration(req.actor) }));

  app.get('/opportunities/rollups', {
    schema: {
      operationId: 'getOpportunityRollups',
      tags,
      summary: 'Per owner and currency: open pipeline closing in the period, deals won and lost in it',
      description: [
        'One row per owner per currency (never summed across currencies); deals without an owner form rows with owner_id null, listed last.',
        'open_*: open deals with expected_close_date in [start, end]; won_*/lost_*: deals won/lost on a UTC day in the period.',
        'One-time value = nrr_cents + hardware_cents. attach_rate counts the owner\'s new logos won in the period, every currency together',
        '(the same value on each of the owner\'s rows). start after end, or a period over 5 years, is a 400.',
      ].join(' '),
      querystring: PeriodQuery,
      response: { 200: RollupsResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.rollups(req.actor, req.query) }));

  app.get('/opportunities/work-queue', {
    schema: {
      operationId: 'getOpportunityWorkQueue',
      tags,
      summary: "The caller's own pipeline for today: actions due, deals going quiet, suggestions waiting",
      description: [
        'Over the open deals the caller owns. do_today: next action due before the start of tomorrow (UTC), by due time; the first is',
        'is_screen_primary. going_quiet: not due yet, last activity older than the tenant\'s nudge_days, oldest first. found_totals: the',
        'deals\' values per currency. money_found: up to 20 pending suggestions (or snoozed ones whose snooze has ended) on clients of the',
        'caller\'s deals, newest first.',
      ].join(' '),
      querystring: NoQuery,
      response: { 200: WorkQueueResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.workQueue(req.actor) }));
};

/** Every management route (views and meeting sessions) with its services, for the area's route registration. */
export const managementPlugin = (deps: { db: Kysely<DB>; now?: () => Date }): FastifyPluginAsyncTypebox => async (app) => {
  await app.register(managementRoutes(createManagementService(deps)));
  await app.register(meetingsRoutes(createMeetingsService(deps)));
};
