import { validation } from '../../../platform/http/errors.ts';
import { roundHalfEven } from '../rounding.ts';

/**
 * Exact tax arithmetic. Percentages are integer thousandths of a percent (8.875 % → 8875), quantities
 * integer ten-thousandths (1.5 → 15000), money integer cents: every product is a bigint, and each line is
 * rounded once, half to even, to the cent. Totals are sums of the rounded lines, so they always equal the
 * sum of what the lines show.
 */

/** A number with at most `decimals` decimals, as an integer of 10^-decimals units; more decimals are a 400. */
function scaled(value: number, decimals: number, path: string, what: string): number {
  const factor = 10 ** decimals;
  const units = Math.round(value * factor);
  if (Math.abs(value * factor - units) > 1e-6) throw validation(path, `${what} takes at most ${decimals} decimals`);
  return units;
}

/** 8.875 → 8875 (thousandths of a percent). */
export const percentageThousandths = (percentage: number, path: string): number => scaled(percentage, 3, path, 'a percentage');
export const percentageOf = (thousandths: number): number => thousandths / 1000;

/** 1.5 → 15000 (ten-thousandths). */
export const quantityUnits = (quantity: number, path: string): number => scaled(quantity, 4, path, 'a quantity');
export const quantityOf = (units: number): number => units / 10_000;

/** quantity × unit price, to the cent (half to even). */
export function lineAmountCents(quantityUnits: number, unitPriceCents: number): number {
  return Number(roundHalfEven(BigInt(quantityUnits) * BigInt(unitPriceCents), 10_000n));
}

/** The tax on one line's amount, to the cent (half to even). */
export function lineTaxCents(amountCents: number, thousandths: number): number {
  return Number(roundHalfEven(BigInt(amountCents) * BigInt(thousandths), 100_000n));
}

export interface LineMoney {
  amount_cents: number;
  tax_cents: number;
}

/** Subtotal, tax and total of rounded lines: each is exactly the sum of the lines' figures. */
export function totalsOf(lines: readonly LineMoney[]): { subtotal_cents: number; tax_cents: number; total_cents: number } {
  let subtotal = 0n;
  let tax = 0n;
  for (const l of lines) {
    subtotal += BigInt(l.amount_cents);
    tax += BigInt(l.tax_cents);
  }
  return { subtotal_cents: Number(subtotal), tax_cents: Number(tax), total_cents: Number(subtotal + tax) };
}
