import { sql, type Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { validation } from '../../../platform/http/errors.ts';
import type { AutomationStatistics, GroupBy, PerformancePoint, PerformanceQuery } from './stats.schemas.ts';

// Executions count as successful when completed, as failed when failed or timed out (the rates use those two).
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const round2 = (n: number) => Math.round(n * 100) / 100;
const num = (v: unknown): number => Number(v ?? 0);
const rate = (part: number, whole: number): number | null => (whole === 0 ? null : round2((part / whole) * 100));
const mean = (v: unknown): number | null => (v === null || v === undefined ? null : round2(Number(v)));

/** The start (UTC) of the period `d` falls in; weeks start on Monday, like PostgreSQL's date_trunc. */
export function periodStart(d: Date, g: GroupBy): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (g) {
    case 'hour':
      return new Date(Math.floor(d.getTime() / HOUR) * HOUR);
    case 'day':
      return new Date(Date.UTC(y, m, d.getUTCDate()));
    case 'week': {
      const day = new Date(Date.UTC(y, m, d.getUTCDate()));
      return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY);
    }
    case 'month':
      return new Date(Date.UTC(y, m, 1));
  }
}

export function nextPeriod(d: Date, g: GroupBy): Date {
  switch (g) {
    case 'hour':
      return new Date(d.getTime() + HOUR);
    case 'day':
      return new Date(d.getTime() + DAY);
    case 'week':
      return new Date(d.getTime() + 7 * DAY);
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  }
}

/** The longest range each grouping takes (400 beyond), and the default range. */
const MAX_RANGE_DAYS: Record<GroupBy, number> = { hour: 31, day: 366, week: 731, month: 1827 };
const DEFAULT_RANGE_MS: Record<GroupBy, number> = { hour: DAY, day: 30 * DAY, week: 84 * DAY, month: 365 * DAY };

const isDateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);
/** A query moment: a date is its UTC midnight, or (for the exclusive end) the midnight after it. */
const momentOf = (s: string, end: boolean): Date => (isDateOnly(s) ? new Date(Date.parse(`${s}T00:00:00Z`) + (end ? DAY : 0)) : new Date(s));

export function createStatsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async statistics(actor: Actor, now = new Date()): Promise<AutomationStatistics> {
      const tenant = actor.tenant;
      const today = periodStart(now, 'day');
      const week = periodStart(now, 'week');
      const month = periodStart(now, 'month');
      const [rules, totals, triggers, actions] = await Promise.all([
        db.selectFrom('automation_rules').select(['status', sql<number>`count(*)`.as('n')]).where('tenant', '=', tenant).groupBy('status').execute(),
        db
          .selectFrom('automation_executions')
          .select([
            sql<number>`count(*)`.as('total'),
            sql<number>`count(*) filter (where status = 'completed')`.as('successful'),
            sql<number>`count(*) filter (where status in ('failed', 'timeout'))`.as('failed'),
            sql<number>`count(*) filter (where created_at >= ${today})`.as('today'),
            sql<number>`count(*) filter (where created_at >= ${week})`.as('week'),
            sql<number>`count(*) filter (where created_at >= ${month})`.as('month'),
            sql<number | string | null>`avg(duration_ms) filter (where status in ('completed', 'failed', 'timeout') and duration_ms is not null)`.as('avg_ms'),
          ])
          .where('tenant', '=', tenant)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('automation_executions')
          .select(['trigger_type', sql<number>`count(*)`.as('n')])
          .where('tenant', '=', tenant)
          .groupBy('trigger_type')
          .orderBy(sql`count(*)`, 'desc')
          .orderBy('trigger_type')
          .execute(),
        db
          .selectFrom('automation_execution_steps')
          .select(['action_type', sql<number>`count(*)`.as('n')])
          .where('tenant', '=', tenant)
          .where('status', 'not in', ['pending', 'skipped'])
          .groupBy('action_type')
          .orderBy(sql`count(*)`, 'desc')
          .orderBy('action_type')
          .limit(20)
          .execute(),
      ]);
      const byStatus = new Map(rules.map((r) => [r.status, num(r.n)]));
      const successful = num(totals.successful);
      const failed = num(totals.failed);
      return {
        total_rules: [...byStatus.values()].reduce((a, b) => a + b, 0),
        active_rules: byStatus.get('active') ?? 0,
        inactive_rules: byStatus.get('inactive') ?? 0,
        draft_rules: byStatus.get('draft') ?? 0,
        error_rules: byStatus.get('error') ?? 0,
        total_executions: num(totals.total),
        successful_executions: successful,
        failed_executions: failed,
        executions_today: num(totals.today),
        executions_this_week: num(totals.week),
        executions_this_month: num(totals.month),
        avg_execution_time_ms: mean(totals.avg_ms),
        success_rate_percent: rate(successful, successful + failed),
        most_used_trigger_types: triggers.map((t) => ({ trigger_type: t.trigger_type, count: num(t.n) })),
        most_used_action_types: actions.map((a) => ({ action_type: a.action_type, count: num(a.n) })),
      };
    },

    /** Executions per period (UTC), every period of the range included. */
    async performance(actor: Actor, query: PerformanceQuery, now = new Date()): Promise<{ data: PerformancePoint[]; meta: { group_by: GroupBy; date_from: string; date_to: string } }> {
      const g = query.group_by ?? 'day';
      const to = query.date_to === undefined ? now : momentOf(query.date_to, true);
      const from = query.date_from === undefined ? new Date(to.getTime() - DEFAULT_RANGE_MS[g]) : momentOf(query.date_from, false);
      if (from.getTime() >= to.getTime()) throw validation('querystring.date_from', 'must be before date_to');
      if (to.getTime() - from.getTime() > MAX_RANGE_DAYS[g] * DAY) {
        throw validation('querystring.date_from', `the range may span at most ${MAX_RANGE_DAYS[g]} days when grouped by ${g}`);
      }
      let q = db
        .selectFrom('automation_executions')
        .select([
          sql<number>`extract(epoch from (date_trunc(${g}, created_at at time zone 'UTC') at time zone 'UTC'))::float8`.as('epoch'),
          sql<number>`count(*)`.as('total'),
          sql<number>`count(*) filter (where status = 'completed')`.as('successful'),
          sql<number>`count(*) filter (where status in ('failed', 'timeout'))`.as('failed'),
          sql<number | string | null>`avg(duration_ms) filter (where status in ('completed', 'failed', 'timeout') and duration_ms is not null)`.as('avg_ms'),
        ])
        .where('tenant', '=', actor.tenant)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(sql`1`);
      if (query.rule_ids && query.rule_ids.length > 0) q = q.where('rule_id', 'in', query.rule_ids);
      const rows = new Map((await q.execute()).map((r) => [Math.round(num(r.epoch) * 1000), r]));
      const data: PerformancePoint[] = [];
      for (let p = periodStart(from, g); p.getTime() < to.getTime(); p = nextPeriod(p, g)) {
        const r = rows.get(p.getTime());
        const total = num(r?.total);
        const successful = num(r?.successful);
        const failed = num(r?.failed);
        const hours = (nextPeriod(p, g).getTime() - p.getTime()) / HOUR;
        data.push({
          period_start: p.toISOString(),
          execution_count: total,
          successful,
          failed,
          success_rate: rate(successful, successful + failed),
          error_rate: rate(failed, successful + failed),
          avg_duration_ms: mean(r?.avg_ms),
          throughput_per_hour: round2(total / hours),
        });
      }
      return { data, meta: { group_by: g, date_from: from.toISOString(), date_to: to.toISOString() } };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
