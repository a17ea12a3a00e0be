import type { LineConfig } from '../../contract-lines/lines.config.ts';
import { addDays } from '../../../../platform/time.ts';
import { roundHalfEven } from '../../rounding.ts';

/**
 * What one contract line bills for one period: pure computation, no database, no floats in money or
 * quantities. Quantities are integer ten-thousandths of a unit (bigint while computed), money integer
 * cents; every division is `roundHalfEven` on bigints except the bucket overage, which rounds up.
 * The item drafts carry no tax: the service prices and taxes them with `priceLines`.
 */

/** An inclusive range of calendar days, 'YYYY-MM-DD'. */
export interface Period {
  start: string;
  end: string;
}

/** An item before pricing: quantity × unit price, what it bills and where it comes from. */
export interface ItemDraft {
  description: string;
  /** Ten-thousandths of a unit (1 → 10000). */
  quantity_units: number;
  unit_price_cents: number;
  service_id: string | null;
  contract_id: string;
  contract_line_id: string;
  /** Stored in invoice_items.source: line type, assignment, the billed part of the period, type specifics. */
  source: ItemSource;
}

export interface ItemSource {
  line_type: 'fixed' | 'usage' | 'bucket';
  client_contract_id: string;
  /** The active part of the requested period the item bills. */
  period_start: string;
  period_end: string;
  [specific: string]: unknown;
}

/** The line as attached to one assignment, and the part of the requested period it is active in. */
export interface LineContext {
  contract_id: string;
  contract_line_id: string;
  client_contract_id: string;
  line_name: string;
  /** The attachment's override of the line's rate (null = the line's own rate). */
  custom_rate_cents: number | null;
  /** The catalogue items on the line; an item names the service when there is exactly one. */
  service_ids: readonly string[];
  /** The requested period (one billing period of the contract). */
  period: Period;
  /** [max(period start, assignment start, contract start), min(period end, assignment end, contract end)]. */
  active: Period;
}

const DAY_MS = 86_400_000;
export const UNITS_PER_QUANTITY = 10_000n;

const dayNumber = (d: string): number => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10))) / DAY_MS;

/** Days in [start, end], both counted: 2026-11-01 – 2026-11-30 → 30. */
export const inclusiveDays = (p: Period): number => dayNumber(p.end) - dayNumber(p.start) + 1;

/** The previous period of the same length: the days right before `p`, as many as `p` has. */
export function previousPeriod(p: Period): Period {
  return { start: addDays(p.start, -inclusiveDays(p)), end: addDays(p.start, -1) };
}

/** The intersection of the period with every range (null end = open-ended); null when empty. */
export function activePart(period: Period, ...ranges: { start: string; end: string | null }[]): Period | null {
  let { start, end } = period;
  for (const r of ranges) {
    if (r.start > start) start = r.start;
    if (r.end !== null && r.end < end) end = r.end;
  }
  return start <= end ? { start, end } : null;
}

/** A quantity setting (units, any decimals) in ten-thousandths, to the nearest. */
export const toUnits = (quantity: number): bigint => BigInt(Math.round(quantity * 10_000));

/** Ten-thousandths as a plain decimal: 15000n → '1.5', 10000n → '1', 3n → '0.0003'. */
export function formatUnits(units: bigint): string {
  const whole = units / UNITS_PER_QUANTITY;
  const frac = (units % UNITS_PER_QUANTITY).toString().padStart(4, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** Ten-thousandths as a number for the API (exact for anything an invoice holds). */
const unitsToNumber = (units: bigint): number => Number(units) / 10_000;

const serviceOf = (ctx: LineContext): string | null => (ctx.service_ids.length === 1 ? ctx.service_ids[0]! : null);

const base = (ctx: LineContext, line_type: ItemSource['line_type']) => ({
  line_type,
  client_contract_id: ctx.client_contract_id,
  period_start: ctx.active.start,
  period_end: ctx.active.end,
});

/** rate × activeDays / periodDays, half to even to the cent. */
export function prorate(rateCents: number, activeDays: number, periodDays: number): number {
  return Number(roundHalfEven(BigInt(rateCents) * BigInt(activeDays), BigInt(periodDays)));
}

/**
 * fixed: the rate (the attachment's custom_rate_cents, else base_rate_cents) once per generated period.
 * With enable_proration and an active part shorter than the period, the rate × active days / period days
 * (inclusive day counts, half to even). Without proration a partial period is billed in full.
 * billing_cycle_alignment is not consulted: the requested period is the billing period.
 */
export function fixedItem(ctx: LineContext, config: Pick<LineConfig, 'base_rate_cents' | 'enable_proration'>): ItemDraft {
  const rate = ctx.custom_rate_cents ?? config.base_rate_cents ?? 0;
  const periodDays = inclusiveDays(ctx.period);
  const activeDays = inclusiveDays(ctx.active);
  const prorated = config.enable_proration === true && activeDays < periodDays;
  const amount = prorated ? prorate(rate, activeDays, periodDays) : rate;
  return {
    description: `${ctx.line_name} (${ctx.active.start} – ${ctx.active.end})`,
    quantity_units: 10_000,
    unit_price_cents: amount,
    service_id: serviceOf(ctx),
    contract_id: ctx.contract_id,
    contract_line_id: ctx.contract_line_id,
    source: { ...base(ctx, 'fixed'), rate_cents: rate, prorated, active_days: activeDays, period_days: periodDays },
  };
}

interface Band {
  from: bigint;
  /** null: no upper bound. */
  to: bigint | null;
  rate: number;
  /** 1-based tier number; null for quantities no tier covers (billed at the line's rate). */
  tier: number | null;
}

/** [0, ∞) cut into the tiers (sorted, [min, max)) and the gaps around them, which take the line's rate. */
function bandsOf(tiers: NonNullable<LineConfig['tiers']>, baseRate: number): Band[] {
  const bands: Band[] = [];
  let cursor: bigint | null = 0n;
  const sorted = [...tiers].sort((a, b) => a.min_quantity - b.min_quantity);
  for (const [i, t] of sorted.entries()) {
    if (cursor === null) break;
    const min = toUnits(t.min_quantity);
    const max = t.max_quantity === null ? null : toUnits(t.max_quantity);
    if (min > cursor) bands.push({ from: cursor, to: min, rate: baseRate, tier: null });
    bands.push({ from: min > cursor ? min : cursor, to: max, rate: t.rate_cents, tier: i + 1 });
    cursor = max;
  }
  if (cursor !== null) bands.push({ from: cursor, to: null, rate: baseRate, tier: null });
  return bands;
}

/**
 * usage: the quantity used in the active part (`usedUnits`, ten-thousandths) raised to minimum_usage; both
 * zero → no item. Without tiers one item at the attachment's custom_rate_cents, else rate_cents. With tiers
 * one item per band the quantity reaches, at the tier's rate; quantities no tier covers (below the first,
 * between tiers, beyond the last bounded one) at the line's rate (custom_rate_cents ?? rate_cents).
 */
export function usageItems(ctx: LineContext, config: Pick<LineConfig, 'unit_of_measure' | 'rate_cents' | 'minimum_usage' | 'tiers'>, usedUnits: bigint): ItemDraft[] {
  const minimum = toUnits(config.minimum_usage ?? 0);
  const billed = usedUnits > minimum ? usedUnits : minimum;
  if (billed <= 0n) return [];
  const rate = ctx.custom_rate_cents ?? config.rate_cents ?? 0;
  const uom = config.unit_of_measure ?? '';
  const common = {
    ...base(ctx, 'usage'),
    unit_of_measure: uom,
    used_quantity: unitsToNumber(usedUnits),
    minimum_quantity: unitsToNumber(minimum),
    billed_quantity: unitsToNumber(billed),
  };
  const item = (units: bigint, unitPrice: number, tier: number | null): ItemDraft => ({
    description: `${ctx.line_name}: ${formatUnits(units)} ${uom}${tier === null ? '' : ` (tier ${tier})`}`,
    quantity_units: Number(units),
    unit_price_cents: unitPrice,
    service_id: serviceOf(ctx),
    contract_id: ctx.contract_id,
    contract_line_id: ctx.contract_line_id,
    source: { ...common, tier, rate_cents: unitPrice },
  });
  if (!config.tiers || config.tiers.length === 0) return [item(billed, rate, null)];
  const items: ItemDraft[] = [];
  for (const b of bandsOf(config.tiers, rate)) {
    if (billed <= b.from) break;
    const top = b.to === null || billed < b.to ? billed : b.to;
    items.push(item(top - b.from, b.rate, b.tier));
  }
  return items;
}

/** Ten-thousandths of a minute as minutes for the API (90.5). */
const minutesOf = (minuteUnits: bigint): number => Number(minuteUnits) / 10_000;

/**
 * bucket: usage of the line's services counts as hours (`usedUnits`: ten-thousandths of an hour, so 1.5 h
 * is 90 minutes). Included: total_minutes, plus with allow_rollover the previous period's unused minutes
 * (`previousUsedUnits`: what was used in the previous equal-length period, null when the assignment did not
 * cover it) capped by rollover_cap_minutes; one period of carry, no chaining. Overage = used − included
 * when positive, billed in hours to the ten-thousandth rounded UP, at the attachment's custom_rate_cents,
 * else overage_rate_cents. No overage → no item. Arithmetic in bigint ten-thousandths of a minute.
 */
export function bucketItems(
  ctx: LineContext,
  config: Pick<LineConfig, 'total_minutes' | 'overage_rate_cents' | 'allow_rollover' | 'rollover_cap_minutes'>,
  usedUnits: bigint,
  previousUsedUnits: bigint | null,
): ItemDraft[] {
  const included = BigInt(config.total_minutes ?? 0) * UNITS_PER_QUANTITY;
  const used = usedUnits * 60n;
  let rollover = 0n;
  if (config.allow_rollover === true && previousUsedUnits !== null) {
    const unused = included - previousUsedUnits * 60n;
    rollover = unused > 0n ? unused : 0n;
    if (config.rollover_cap_minutes !== undefined) {
      const cap = BigInt(config.rollover_cap_minutes) * UNITS_PER_QUANTITY;
      if (rollover > cap) rollover = cap;
    }
  }
  const allowance = included + rollover;
  const over = used - allowance;
  if (over <= 0n) return [];
  const hours = (over + 59n) / 60n;
  const rate = ctx.custom_rate_cents ?? config.overage_rate_cents ?? 0;
  return [{
    description: `${ctx.line_name}: ${formatUnits(hours)} h beyond the ${formatUnits(allowance)} min included`,
    quantity_units: Number(hours),
    unit_price_cents: rate,
    service_id: serviceOf(ctx),
    contract_id: ctx.contract_id,
    contract_line_id: ctx.contract_line_id,
    source: {
      ...base(ctx, 'bucket'),
      included_minutes: minutesOf(included),
      rollover_minutes: minutesOf(rollover),
      used_minutes: minutesOf(used),
      overage_minutes: minutesOf(over),
      rate_cents: rate,
    },
  }];
}
