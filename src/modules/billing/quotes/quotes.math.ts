import type { BillingFrequency, ItemKind } from '../../../platform/db/schema.billing.ts';
import { roundHalfEven } from '../rounding.ts';

/** One period's amount as a fraction of a month: [numerator, denominator] (52 weeks / 12 months a year). */
const PER_MONTH: Record<BillingFrequency, readonly [bigint, bigint]> = {
  weekly: [52n, 12n],
  'bi-weekly': [26n, 12n],
  monthly: [1n, 1n],
  quarterly: [1n, 3n],
  'semi-annually': [1n, 6n],
  annually: [1n, 12n],
};

/** A recurring amount per period as a monthly amount, to the cent (half to even, exact on bigints). */
export function monthlyCents(netCents: number, frequency: BillingFrequency): number {
  const [numerator, denominator] = PER_MONTH[frequency];
  return Number(roundHalfEven(BigInt(netCents) * numerator, denominator));
}

export interface SplitItem {
  /** Net (quantity × unit price). */
  total_cents: number;
  item_kind: ItemKind;
  is_recurring: boolean;
  billing_frequency: BillingFrequency | null;
}

export interface ValueSplit {
  /** Recurring items, each normalised to a month and rounded, then summed. */
  mrr_cents: number;
  /** One-off services. */
  nrr_cents: number;
  /** One-off products. */
  hardware_cents: number;
}

/** How a quote's net value divides into monthly recurring, one-off services and hardware. */
export function valueSplit(items: readonly SplitItem[]): ValueSplit {
  let mrr = 0;
  let nrr = 0;
  let hardware = 0;
  for (const i of items) {
    if (i.is_recurring) mrr += monthlyCents(i.total_cents, i.billing_frequency ?? 'monthly');
    else if (i.item_kind === 'product') hardware += i.total_cents;
    else nrr += i.total_cents;
  }
  return { mrr_cents: mrr, nrr_cents: nrr, hardware_cents: hardware };
}
