import type { Confidence, OpportunityStage, OpportunityType } from '../../../platform/db/schema.opportunities.ts';
import { validation } from '../../../platform/http/errors.ts';
import { addDays } from '../../../platform/time.ts';
import { roundHalfEven } from '../../billing/index.ts';
import { LADDER } from '../opportunities.stage.ts';

/**
 * The arithmetic of the management views, free of I/O: exact fractions, half-even rounding, the period,
 * stage rates (base or seller-calibrated) and the forecast band.
 */

export type LadderStage = (typeof LADDER)[number];
export const STAGES: readonly LadderStage[] = LADDER;
export const CONFIDENCES: readonly Confidence[] = ['low', 'medium', 'high', 'committed'];

/** A seller's rates are their own once they have closed this many deals (won + lost). */
export const CALIBRATION_MIN_CLOSED = 20;
/** A won new logo counts as attached when its client starts a contract within this many days (UTC dates). */
export const ATTACH_WINDOW_DAYS = 60;
/** The longest period a forecast or rollup covers. */
export const MAX_PERIOD_YEARS = 5;

/** An exact rate: num / den, den > 0. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

const pct = (n: number): Fraction => ({ num: BigInt(n), den: 100n });
export const BASE_RATES: Readonly<Record<LadderStage, Fraction>> = {
  identified: pct(5),
  qualified: pct(15),
  assessment: pct(35),
  proposed: pct(50),
  verbal: pct(80),
};
export const ONE: Fraction = { num: 1n, den: 1n };

/** cents × rate, rounded half-to-even to whole cents. */
export const weighCents = (cents: number, w: Fraction): number => Number(roundHalfEven(BigInt(cents) * w.num, w.den));

/** A rate as the API shows it: a number with (at most) 4 decimals, rounded half-to-even. */
export const decimal4 = (w: Fraction): number => Number(roundHalfEven(w.num * 10_000n, w.den)) / 10_000;

/** won / closed with 4 decimals, or null when nothing closed. */
export const rateOf = (won: number, closed: number): number | null => (closed === 0 ? null : decimal4({ num: BigInt(won), den: BigInt(closed) }));

export interface Period {
  start: string;
  end: string;
  /** [startAt, endBefore): the period's UTC instants (timestamps compare against these). */
  startAt: Date;
  endBefore: Date;
}

/** A [start, end] period of UTC days: start after end, or a span over five years, is a 400 naming the field. */
export function periodOf(q: { start: string; end: string }): Period {
  if (q.start > q.end) throw validation('querystring.end', `must not be before start (${q.start})`);
  const [y, md] = [Number(q.start.slice(0, 4)), q.start.slice(4)];
  if (q.end > `${String(y + MAX_PERIOD_YEARS).padStart(4, '0')}${md}`) throw validation('querystring.end', `the period spans at most ${MAX_PERIOD_YEARS} years`);
  return { start: q.start, end: q.end, startAt: new Date(`${q.start}T00:00:00.000Z`), endBefore: new Date(`${addDays(q.end, 1)}T00:00:00.000Z`) };
}

/** One closed deal of a seller's history. */
export interface ClosedDeal {
  opportunity_id: string;
  owner_id: string;
  status: 'won' | 'lost';
  confidence: Confidence;
  opportunity_type: OpportunityType;
  currency_code: string;
  /** The highest uncorrected non-won checkpoint recorded at or before the close (identified when none). */
  stage_at_close: LadderStage;
  /** A won new logo whose client started a contract within the attach window. */
  attached: boolean;
}

export interface StageTally {
  closed: number;
  won: number;
}

export interface SellerCalibration {
  closed: number;
  calibrated: boolean;
  stages: Record<LadderStage, StageTally>;
}

export function calibrationOf(deals: readonly ClosedDeal[]): SellerCalibration {
  const stages = Object.fromEntries(STAGES.map((s) => [s, { closed: 0, won: 0 }])) as Record<LadderStage, StageTally>;
  for (const d of deals) {
    stages[d.stage_at_close].closed += 1;
    if (d.status === 'won') stages[d.stage_at_close].won += 1;
  }
  return { closed: deals.length, calibrated: deals.length >= CALIBRATION_MIN_CLOSED, stages };
}

/** The rate of a stage for a seller: their own (won / closed at that stage) once calibrated and when any closed there, else the base rate. */
export function stageRate(cal: SellerCalibration | undefined, stage: LadderStage): { rate: Fraction; source: 'base' | 'seller_calibration' } {
  const tally = cal?.calibrated ? cal.stages[stage] : undefined;
  if (tally && tally.closed > 0) return { rate: { num: BigInt(tally.won), den: BigInt(tally.closed) }, source: 'seller_calibration' };
  return { rate: BASE_RATES[stage], source: 'base' };
}

export interface AttachRate {
  won_new_logo_count: number;
  attached_count: number;
  rate: number | null;
}

export function attachRateOf(deals: readonly Pick<ClosedDeal, 'status' | 'opportunity_type' | 'attached'>[]): AttachRate {
  const logos = deals.filter((d) => d.status === 'won' && d.opportunity_type === 'new_logo');
  const attached = logos.filter((d) => d.attached).length;
  return { won_new_logo_count: logos.length, attached_count: attached, rate: rateOf(attached, logos.length) };
}

export interface ForecastDeal {
  opportunity_id: string;
  opportunity_number: string;
  title: string;
  owner_id: string | null;
  currency_code: string;
  stage: OpportunityStage;
  status: 'open' | 'won';
  mrr_cents: number;
  nrr_cents: number;
  hardware_cents: number;
}

export interface Contribution {
  opportunity_id: string;
  opportunity_number: string;
  title: string;
  owner_id: string | null;
  currency_code: string;
  stage: OpportunityStage;
  status: 'open' | 'won';
  weight: number;
  weight_source: 'won' | 'base' | 'seller_calibration';
  mrr_cents: number;
  one_time_cents: number;
  weighted_mrr_cents: number;
  weighted_one_time_cents: number;
  in_floor: boolean;
}

export interface CurrencyBand {
  currency_code: string;
  floor_mrr_cents: number;
  floor_one_time_cents: number;
  ceiling_mrr_cents: number;
  ceiling_one_time_cents: number;
  deal_count: number;
}

/**
 * The forecast band: each deal weighted (won 1; open at its seller's calibrated rate for its stage, else the
 * base rate), each weighted amount rounded half-to-even to whole cents; per currency, floor = Σ full amounts
 * of won deals and open verbal deals, ceiling = floor + Σ rounded weighted amounts of the other deals.
 */
export function forecastBand(deals: readonly ForecastDeal[], calibrations: ReadonlyMap<string, SellerCalibration>): { by_currency: CurrencyBand[]; composition: Contribution[] } {
  const composition = deals.map((d): Contribution => {
    const oneTime = d.nrr_cents + d.hardware_cents;
    const stage = (STAGES as readonly string[]).includes(d.stage) ? (d.stage as LadderStage) : 'identified';
    const { rate, source } = d.status === 'won' ? { rate: ONE, source: 'won' as const } : stageRate(d.owner_id === null ? undefined : calibrations.get(d.owner_id), stage);
    return {
      opportunity_id: d.opportunity_id,
      opportunity_number: d.opportunity_number,
      title: d.title,
      owner_id: d.owner_id,
      currency_code: d.currency_code,
      stage: d.stage,
      status: d.status,
      weight: decimal4(rate),
      weight_source: source,
      mrr_cents: d.mrr_cents,
      one_time_cents: oneTime,
      weighted_mrr_cents: weighCents(d.mrr_cents, rate),
      weighted_one_time_cents: weighCents(oneTime, rate),
      in_floor: d.status === 'won' || d.stage === 'verbal',
    };
  });
  composition.sort((a, b) => cmp(a.currency_code, b.currency_code) || cmp(a.opportunity_number, b.opportunity_number));
  const bands = new Map<string, CurrencyBand>();
  for (const c of composition) {
    let band = bands.get(c.currency_code);
    if (!band) {
      band = { currency_code: c.currency_code, floor_mrr_cents: 0, floor_one_time_cents: 0, ceiling_mrr_cents: 0, ceiling_one_time_cents: 0, deal_count: 0 };
      bands.set(c.currency_code, band);
    }
    band.deal_count += 1;
    if (c.in_floor) {
      band.floor_mrr_cents += c.mrr_cents;
      band.floor_one_time_cents += c.one_time_cents;
      band.ceiling_mrr_cents += c.mrr_cents;
      band.ceiling_one_time_cents += c.one_time_cents;
    } else {
      band.ceiling_mrr_cents += c.weighted_mrr_cents;
      band.ceiling_one_time_cents += c.weighted_one_time_cents;
    }
  }
  const by_currency = [...bands.values()].sort((a, b) => b.ceiling_mrr_cents - a.ceiling_mrr_cents || cmp(a.currency_code, b.currency_code));
  return { by_currency, composition };
}

export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
