import { describe, expect, it } from 'vitest';
import { monthlyCents, valueSplit } from './quotes.math.ts';

describe('monthlyCents', () => {
  it('normalises each billing frequency to a month, half to even on exact integers', () => {
    expect(monthlyCents(1000, 'weekly')).toBe(4333); // 4333.33
    expect(monthlyCents(1500, 'weekly')).toBe(6500); // exactly 6500
    expect(monthlyCents(3, 'weekly')).toBe(13); // 13
    expect(monthlyCents(1000, 'bi-weekly')).toBe(2167); // 2166.67
    expect(monthlyCents(6, 'bi-weekly')).toBe(13);
    expect(monthlyCents(12345, 'monthly')).toBe(12345);
    expect(monthlyCents(10001, 'quarterly')).toBe(3334); // 3333.67
    expect(monthlyCents(10000, 'quarterly')).toBe(3333); // 3333.33
    expect(monthlyCents(9, 'semi-annually')).toBe(2); // 1.5 → 2 (even)
    expect(monthlyCents(15, 'semi-annually')).toBe(2); // 2.5 → 2 (even)
    expect(monthlyCents(60000, 'annually')).toBe(5000);
    expect(monthlyCents(18, 'annually')).toBe(2); // 1.5 → 2
    expect(monthlyCents(30, 'annually')).toBe(2); // 2.5 → 2
    expect(monthlyCents(42, 'annually')).toBe(4); // 3.5 → 4
    expect(monthlyCents(0, 'weekly')).toBe(0);
  });

  it('stays exact beyond float precision', () => {
    expect(monthlyCents(999_999_999_999, 'weekly')).toBe(4_333_333_333_329); // 4333333333329.0
    expect(monthlyCents(1_000_000_000_001, 'annually')).toBe(83_333_333_333); // 83333333333.4167
  });
});

describe('valueSplit', () => {
  it('rounds each recurring item to a month before summing; one-off services are nrr, one-off products hardware', () => {
    const split = valueSplit([
      { total_cents: 10001, item_kind: 'service', is_recurring: true, billing_frequency: 'quarterly' }, // 3333.67 → 3334
      { total_cents: 10001, item_kind: 'service', is_recurring: true, billing_frequency: 'quarterly' }, // → 3334 (not 6667 from 20002/3)
      { total_cents: 60000, item_kind: 'product', is_recurring: true, billing_frequency: 'annually' }, // a recurring product: mrr 5000
      { total_cents: 700, item_kind: 'service', is_recurring: false, billing_frequency: null },
      { total_cents: 300, item_kind: 'service', is_recurring: false, billing_frequency: null },
      { total_cents: 199800, item_kind: 'product', is_recurring: false, billing_frequency: null },
    ]);
    expect(split).toEqual({ mrr_cents: 11668, nrr_cents: 1000, hardware_cents: 199800 });
    expect(valueSplit([])).toEqual({ mrr_cents: 0, nrr_cents: 0, hardware_cents: 0 });
  });
});
