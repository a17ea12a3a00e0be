import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { groupBy } from '../../../platform/collections.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { portalClientId } from '../../clients/index.ts';
import { opportunitySettingsOf } from '../opportunities.settings.ts';
import {
  CONFIDENCES,
  STAGES,
  attachRateOf,
  calibrationOf,
  cmp,
  decimal4,
  forecastBand,
  periodOf,
  rateOf,
  stageRate,
  type ClosedDeal,
  type SellerCalibration as Calibration,
} from './management.math.ts';
import { closedDeals, firstNameOf, forecastDeals, openDealsOf, openInPeriod, userNames, waitingSuggestions, type QueueDealRow } from './management.repo.ts';
import type { Forecast, PeriodQuery, Rollup, SellerCalibration, WorkQueue } from './management.schemas.ts';

const DAY_MS = 86_400_000;
const MONEY_FOUND_LIMIT = 20;

const scopeOf = (actor: Actor) => ({ tenant: actor.tenant, onlyClientId: portalClientId(actor) });

/** Forecast, calibration, rollups and the personal work queue: computed at request time, never stored. */
export function createManagementService(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** Each seller's closed history (owners given, or every owner), as ClosedDeal per owner. */
  async function histories(actor: Actor, ownerIds?: readonly string[]): Promise<Map<string, ClosedDeal[]>> {
    const rows = await closedDeals(db, scopeOf(actor), { ownerIds, ownedOnly: true });
    return groupBy(
      rows.map((r) => ({ ...r, owner_id: r.owner_id! })),
      (r) => r.owner_id,
    );
  }

  return {
    async forecast(actor: Actor, query: PeriodQuery): Promise<Forecast> {
      const period = periodOf(query);
      const deals = await forecastDeals(db, scopeOf(actor), period);
      const owners = [...new Set(deals.flatMap((d) => (d.owner_id === null || d.status === 'won' ? [] : [d.owner_id])))];
      const history = await histories(actor, owners);
      const calibrations = new Map<string, Calibration>([...history].map(([owner, closed]) => [owner, calibrationOf(closed)]));
      return { start: period.start, end: period.end, ...forecastBand(deals, calibrations) };
    },

    async calibration(actor: Actor): Promise<SellerCalibration[]> {
      const history = await histories(actor);
      const names = await userNames(db, actor.tenant, [...history.keys()]);
      const out = [...history].map(([sellerId, closed]): SellerCalibration => {
        const cal = calibrationOf(closed);
        return {
          seller_id: sellerId,
          seller_name: names.get(sellerId) ?? sellerId,
          closed_deal_count: cal.closed,
          calibrated: cal.calibrated,
          stage_rates: STAGES.map((stage) => {
            const { rate, source } = stageRate(cal, stage);
            return { stage, closed_count: cal.stages[stage].closed, won_count: cal.stages[stage].won, rate: decimal4(rate), source };
          }),
          confidence_outcomes: CONFIDENCES.map((confidence) => {
            const cohort = closed.filter((d) => d.confidence === confidence);
            const won = cohort.filter((d) => d.status === 'won').length;
            return { confidence, closed_count: cohort.length, won_count: won, close_rate: rateOf(won, cohort.length) };
          }),
          attach_rate: attachRateOf(closed),
        };
      });
      return out.sort((a, b) => cmp(a.seller_name.toLowerCase(), b.seller_name.toLowerCase()) || cmp(a.seller_id, b.seller_id));
    },

    async rollups(actor: Actor, query: PeriodQuery): Promise<Rollup[]> {
      const period = periodOf(query);
      const scope = scopeOf(actor);
      const [open, closed] = await Promise.all([openInPeriod(db, scope, period), closedDeals(db, scope, { closedIn: period })]);
      const ownerKey = (id: string | null) => id ?? '';
      const attach = new Map([...groupBy(closed, (r) => ownerKey(r.owner_id))].map(([owner, rows]) => [owner, attachRateOf(rows)]));
      const rows = new Map<string, Rollup>();
      const rowOf = (ownerId: string | null, currency: string): Rollup => {
        const key = `${ownerKey(ownerId)}|${currency}`;
        let row = rows.get(key);
        if (!row) {
          row = {
            owner_id: ownerId, owner_name: null, currency_code: currency,
            open_count: 0, open_mrr_cents: 0, open_one_time_cents: 0,
            won_count: 0, won_mrr_cents: 0, won_one_time_cents: 0,
            lost_count: 0, lost_mrr_cents: 0, lost_one_time_cents: 0,
            attach_rate: attach.get(ownerKey(ownerId)) ?? attachRateOf([]),
          };
          rows.set(key, row);
        }
        return row;
      };
      for (const d of open) {
        const r = rowOf(d.owner_id, d.currency_code);
        r.open_count += 1;
        r.open_mrr_cents += d.mrr_cents;
        r.open_one_time_cents += d.nrr_cents + d.hardware_cents;
      }
      for (const d of closed) {
        const r = rowOf(d.owner_id, d.currency_code);
        if (d.status === 'won') {
          r.won_count += 1;
          r.won_mrr_cents += d.mrr_cents;
          r.won_one_time_cents += d.nrr_cents + d.hardware_cents;
        } else {
          r.lost_count += 1;
          r.lost_mrr_cents += d.mrr_cents;
          r.lost_one_time_cents += d.nrr_cents + d.hardware_cents;
        }
      }
      const list = [...rows.values()];
      const names = await userNames(db, actor.tenant, [...new Set(list.flatMap((r) => (r.owner_id ? [r.owner_id] : [])))]);
      for (const r of list) r.owner_name = r.owner_id === null ? null : (names.get(r.owner_id) ?? r.owner_id);
      // Owners by name (unowned deals last), then currency.
      const sortName = (r: Rollup) => (r.owner_name === null ? '\uffff' : r.owner_name.toLowerCase());
      return list.sort((a, b) => cmp(sortName(a), sortName(b)) || cmp(a.owner_id ?? '', b.owner_id ?? '') || cmp(a.currency_code, b.currency_code));
    },

    async workQueue(actor: Actor): Promise<WorkQueue> {
      const at = now();
      const today = utcDate(at);
      const tomorrow = Date.parse(`${today}T00:00:00.000Z`) + DAY_MS;
      const scope = scopeOf(actor);
      const [firstName, open, settings, suggestions] = await Promise.all([
        firstNameOf(db, actor.tenant, actor.userId),
        openDealsOf(db, scope, actor.userId),
        opportunitySettingsOf(db, actor.tenant),
        waitingSuggestions(db, scope, actor.userId, at, MONEY_FOUND_LIMIT),
      ]);
      const quietBefore = at.getTime() - settings.nudge_days * DAY_MS;
      const item = (kind: 'action_due' | 'going_quiet', d: QueueDealRow) => {
        const due = d.next_action_due!;
        return {
          kind,
          opportunity_id: d.opportunity_id,
          opportunity_number: d.opportunity_number,
          title: d.title,
          client_id: d.client_id,
          client_name: d.client_name,
          stage: d.stage,
          mrr_cents: d.mrr_cents,
          nrr_cents: d.nrr_cents,
          hardware_cents: d.hardware_cents,
          currency_code: d.currency_code,
          next_action: d.next_action ?? '',
          next_action_due: iso(due),
          days_overdue: Math.max(0, Math.round((Date.parse(`${today}T00:00:00.000Z`) - Date.parse(`${utcDate(due)}T00:00:00.000Z`)) / DAY_MS)),
          days_since_activity: Math.max(0, Math.floor((at.getTime() - d.last_activity_at.getTime()) / DAY_MS)),
          is_screen_primary: false,
        };
      };
      const dueOf = (d: QueueDealRow) => d.next_action_due!.getTime();
      const doToday = open
        .filter((d) => dueOf(d) < tomorrow)
        .sort((a, b) => dueOf(a) - dueOf(b) || cmp(a.opportunity_number, b.opportunity_number))
        .map((d) => item('action_due', d));
      if (doToday[0]) doToday[0].is_screen_primary = true;
      const goingQuiet = open
        .filter((d) => dueOf(d) >= tomorrow && d.last_activity_at.getTime() < quietBefore)
        .sort((a, b) => a.last_activity_at.getTime() - b.last_activity_at.getTime() || cmp(a.opportunity_number, b.opportunity_number))
        .map((d) => item('going_quiet', d));
      const totals = new Map<string, { currency_code: string; mrr_cents: number; nrr_cents: number; hardware_cents: number }>();
      for (const d of open) {
        const t = totals.get(d.currency_code) ?? { currency_code: d.currency_code, mrr_cents: 0, nrr_cents: 0, hardware_cents: 0 };
        t.mrr_cents += d.mrr_cents;
        t.nrr_cents += d.nrr_cents;
        t.hardware_cents += d.hardware_cents;
        totals.set(d.currency_code, t);
      }
      return {
        user_first_name: firstName,
        date: today,
        found_totals: [...totals.values()].sort((a, b) => cmp(a.currency_code, b.currency_code)),
        do_today: doToday,
        going_quiet: goingQuiet,
        money_found: suggestions.map((s) => ({
          suggestion_id: s.suggestion_id,
          generator_key: s.generator_key,
          client_id: s.client_id,
          client_name: s.client_name,
          title: s.title,
          mrr_cents: s.mrr_cents,
          nrr_cents: s.nrr_cents,
          currency_code: s.currency_code,
          status: s.status as 'pending' | 'snoozed',
          snoozed_until: iso(s.snoozed_until),
          created_at: iso(s.created_at),
        })),
      };
    },
  };
}

export type ManagementService = ReturnType<typeof createManagementService>;
