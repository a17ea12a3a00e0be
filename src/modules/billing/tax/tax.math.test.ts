import { describe, expect, it } from 'vitest';
import { AppError } from '../../../platform/http/errors.ts';
import { seededRandom as random } from '../../../../test/random.ts';
import { lineAmountCents, lineTaxCents, percentageThousandths, quantityUnits, totalsOf } from './tax.math.ts';

describe('tax arithmetic', () => {
  it('reads percentages to three decimals and quantities to four, refusing more', () => {
    expect(percentageThousandths(8.875, 'p')).toBe(8875);
    expect(percentageThousandths(20, 'p')).toBe(20000);
    expect(percentageThousandths(0.001, 'p')).toBe(1);
    expect(quantityUnits(1.5, 'q')).toBe(15000);
    expect(quantityUnits(0.0001, 'q')).toBe(1);
    expect(() => percentageThousandths(8.8755, 'body.percentage')).toThrow(AppError);
    expect(() => quantityUnits(1.00001, 'body.quantity')).toThrow(/four|4 decimals/);
  });

  it('rounds each line once, half to even, to the cent', () => {
    expect(lineAmountCents(15000, 333)).toBe(500); // 1.5 × 3.33 = 4.995 → 5.00 (the 0.5 rounds to even 500)
    expect(lineAmountCents(5000, 1)).toBe(0); // 0.5 × 0.01 = 0.005 → 0.00 (even)
    expect(lineAmountCents(15000, 1)).toBe(2); // 1.5 × 0.01 = 0.015 → 0.02 (even)
    expect(lineAmountCents(12345, 9999)).toBe(12344); // 1.2345 × 99.99 = 123.437655 → 123.44
    expect(lineTaxCents(1000, 8875)).toBe(89); // 10.00 × 8.875 % = 0.8875 → 0.89
    expect(lineTaxCents(1000, 25000)).toBe(250);
    expect(lineTaxCents(10, 25000)).toBe(2); // 0.025 → 0.02 (even)
    expect(lineTaxCents(30, 25000)).toBe(8); // 0.075 → 0.08 (even)
    expect(lineTaxCents(123456789012, 20000)).toBe(24691357802); // beyond float-safe products: exact
  });

  it('totals always equal the sum of their lines, over thousands of random invoices', () => {
    const next = random(20261124);
    for (let invoice = 0; invoice < 2000; invoice++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
        const qty = Math.floor(next() * 1_000_000) + 1; // up to 100.0000
        const price = Math.floor(next() * 10_000_000); // up to 100,000.00
        const rate = [0, 5000, 8875, 19000, 20000, 25000][Math.floor(next() * 6)]!;
        const amount = lineAmountCents(qty, price);
        expect(Number.isInteger(amount)).toBe(true);
        expect(Math.abs(amount - (qty * price) / 10_000)).toBeLessThanOrEqual(0.5);
        const tax = lineTaxCents(amount, rate);
        expect(Math.abs(tax - (amount * rate) / 100_000)).toBeLessThanOrEqual(0.5);
        return { amount_cents: amount, tax_cents: tax };
      });
      const totals = totalsOf(lines);
      expect(totals.subtotal_cents).toBe(lines.reduce((s, l) => s + l.amount_cents, 0));
      expect(totals.tax_cents).toBe(lines.reduce((s, l) => s + l.tax_cents, 0));
      expect(totals.total_cents).toBe(totals.subtotal_cents + totals.tax_cents);
    }
  });
});
