import { describe, expect, it } from 'vitest';
import {
  activePart, bucketItems, fixedItem, formatUnits, inclusiveDays, previousPeriod, prorate, usageItems, type LineContext,
} from './generate.lines.ts';

const NOV = { start: '2026-11-01', end: '2026-11-30' };

const ctx = (over: Partial<LineContext> = {}): LineContext => ({
  contract_id: 'c1',
  contract_line_id: 'l1',
  client_contract_id: 'cc1',
  line_name: 'Line',
  custom_rate_cents: null,
  service_ids: [],
  period: NOV,
  active: NOV,
  ...over,
});

/** [quantity in units, unit price, tier] of each item. */
const shape = (items: { quantity_units: number; unit_price_cents: number; source: Record<string, unknown> }[]) =>
  items.map((i) => [i.quantity_units, i.unit_price_cents, i.source.tier ?? null]);

describe('periods', () => {
  it('counts days inclusively, finds the active part and the previous period of equal length', () => {
    expect(inclusiveDays(NOV)).toBe(30);
    expect(inclusiveDays({ start: '2028-02-01', end: '2028-02-29' })).toBe(29);
    expect(inclusiveDays({ start: '2026-01-01', end: '2026-12-31' })).toBe(365);
    expect(activePart(NOV, { start: '2026-11-16', end: null }, { start: '2026-01-01', end: '2026-11-20' })).toEqual({ start: '2026-11-16', end: '2026-11-20' });
    expect(activePart(NOV, { start: '2026-01-01', end: null })).toEqual(NOV);
    expect(activePart(NOV, { start: '2026-12-01', end: null })).toBeNull();
    expect(previousPeriod(NOV)).toEqual({ start: '2026-10-02', end: '2026-10-31' });
    expect(previousPeriod({ start: '2026-03-01', end: '2026-03-31' })).toEqual({ start: '2026-01-29', end: '2026-02-28' });
  });

  it('formats ten-thousandths exactly', () => {
    expect(formatUnits(15000n)).toBe('1.5');
    expect(formatUnits(10000n)).toBe('1');
    expect(formatUnits(3n)).toBe('0.0003');
    expect(formatUnits(123456789012345678n)).toBe('12345678901234.5678');
  });
});

describe('fixed lines', () => {
  it('prorates half to even, exactly', () => {
    expect(prorate(1000, 15, 30)).toBe(500);
    expect(prorate(999, 1, 31)).toBe(32); // 32.225…
    expect(prorate(1001, 15, 30)).toBe(500); // 500.5 → even
    expect(prorate(1003, 15, 30)).toBe(502); // 501.5 → even
    expect(prorate(1, 1, 2)).toBe(0);
    expect(prorate(3, 1, 2)).toBe(2);
  });

  it('bills the rate once per period; prorates a partial period only when the line says so; the custom rate wins', () => {
    const half = { active: { start: '2026-11-16', end: '2026-11-30' } };
    const full = fixedItem(ctx({ line_name: 'Managed desktops' }), { base_rate_cents: 1000 });
    expect(full).toMatchObject({ description: 'Managed desktops (2026-11-01 – 2026-11-30)', quantity_units: 10000, unit_price_cents: 1000, service_id: null });
    expect(full.source).toEqual({ line_type: 'fixed', client_contract_id: 'cc1', period_start: '2026-11-01', period_end: '2026-11-30', rate_cents: 1000, prorated: false, active_days: 30, period_days: 30 });
    expect(fixedItem(ctx(half), { base_rate_cents: 1000 }).unit_price_cents).toBe(1000);
    const prorated = fixedItem(ctx({ ...half, line_name: 'Desk' }), { base_rate_cents: 1000, enable_proration: true });
    expect(prorated).toMatchObject({ description: 'Desk (2026-11-16 – 2026-11-30)', unit_price_cents: 500, source: { prorated: true, active_days: 15, period_days: 30 } });
    expect(fixedItem(ctx({ ...half, custom_rate_cents: 1003 }), { base_rate_cents: 1000, enable_proration: true }).unit_price_cents).toBe(502);
    expect(fixedItem(ctx({ service_ids: ['s1'] }), { base_rate_cents: 1 }).service_id).toBe('s1');
    expect(fixedItem(ctx({ service_ids: ['s1', 's2'] }), { base_rate_cents: 1 }).service_id).toBeNull();
  });
});

describe('usage lines', () => {
  const flat = { unit_of_measure: 'GB', rate_cents: 10, minimum_usage: 0 };

  it('bills the quantity used at the rate (custom rate first); nothing used and no minimum → no item', () => {
    const [item] = usageItems(ctx({ line_name: 'Storage', service_ids: ['s1'] }), flat, 12_3456n);
    expect(item).toMatchObject({ description: 'Storage: 12.3456 GB', quantity_units: 123456, unit_price_cents: 10, service_id: 's1' });
    expect(item!.source).toMatchObject({ line_type: 'usage', used_quantity: 12.3456, minimum_quantity: 0, billed_quantity: 12.3456, tier: null, rate_cents: 10 });
    expect(shape(usageItems(ctx({ custom_rate_cents: 7 }), flat, 10000n))).toEqual([[10000, 7, null]]);
    expect(usageItems(ctx(), flat, 0n)).toEqual([]);
  });

  it('raises the quantity to the minimum', () => {
    expect(shape(usageItems(ctx(), { ...flat, minimum_usage: 5 }, 0n))).toEqual([[50000, 10, null]]);
    expect(shape(usageItems(ctx(), { ...flat, minimum_usage: 5 }, 30000n))).toEqual([[50000, 10, null]]);
    expect(shape(usageItems(ctx(), { ...flat, minimum_usage: 5 }, 70000n))).toEqual([[70000, 10, null]]);
    expect(shape(usageItems(ctx(), { ...flat, minimum_usage: 0.5 }, 0n))).toEqual([[5000, 10, null]]);
  });

  it('splits the quantity into the tier bands it reaches; what no tier covers takes the line rate', () => {
    const open = { ...flat, tiers: [{ min_quantity: 100, max_quantity: null, rate_cents: 5 }, { min_quantity: 0, max_quantity: 100, rate_cents: 8 }] };
    expect(shape(usageItems(ctx(), open, 150_0000n))).toEqual([[100_0000, 8, 1], [50_0000, 5, 2]]);
    expect(shape(usageItems(ctx(), open, 40_0000n))).toEqual([[40_0000, 8, 1]]);
    expect(shape(usageItems(ctx(), open, 100_0000n))).toEqual([[100_0000, 8, 1]]);
    const items = usageItems(ctx({ line_name: 'Backup' }), open, 100_0001n);
    expect(items.map((i) => i.description)).toEqual(['Backup: 100 GB (tier 1)', 'Backup: 0.0001 GB (tier 2)']);
    expect(items[1]!.source).toMatchObject({ tier: 2, billed_quantity: 100.0001, rate_cents: 5 });

    const bounded = { ...flat, tiers: [{ min_quantity: 0, max_quantity: 100, rate_cents: 8 }, { min_quantity: 100, max_quantity: 200, rate_cents: 6 }] };
    expect(shape(usageItems(ctx(), bounded, 250_0000n))).toEqual([[100_0000, 8, 1], [100_0000, 6, 2], [50_0000, 10, null]]);
    expect(shape(usageItems(ctx({ custom_rate_cents: 9 }), bounded, 250_0000n))).toEqual([[100_0000, 8, 1], [100_0000, 6, 2], [50_0000, 9, null]]);
    const gapped = { ...flat, tiers: [{ min_quantity: 10, max_quantity: 20, rate_cents: 7 }] };
    expect(shape(usageItems(ctx(), gapped, 30_0000n))).toEqual([[10_0000, 10, null], [10_0000, 7, 1], [10_0000, 10, null]]);
    expect(shape(usageItems(ctx(), { ...open, minimum_usage: 120 }, 0n))).toEqual([[100_0000, 8, 1], [20_0000, 5, 2]]);
  });
});

describe('bucket lines', () => {
  const bucket = { total_minutes: 60, overage_rate_cents: 15000, allow_rollover: false };

  it('bills the overage in hours, rounded UP to the ten-thousandth; none → no item', () => {
    expect(bucketItems(ctx(), bucket, 10000n, null)).toEqual([]); // exactly the hour included
    const [tiny] = bucketItems(ctx(), bucket, 10001n, null); // 60.006 min: 0.006 min over → 0.0001 h
    expect(tiny).toMatchObject({ quantity_units: 1, unit_price_cents: 15000 });
    const [item] = bucketItems(ctx({ line_name: 'Hours' }), bucket, 12834n, null); // 77.004 min: 17.004 over → 0.2834 h exactly
    expect(item).toMatchObject({ quantity_units: 2834, description: 'Hours: 0.2834 h beyond the 60 min included' });
    expect(item!.source).toEqual({
      line_type: 'bucket', client_contract_id: 'cc1', period_start: '2026-11-01', period_end: '2026-11-30',
      included_minutes: 60, rollover_minutes: 0, used_minutes: 77.004, overage_minutes: 17.004, rate_cents: 15000,
    });
    expect(bucketItems(ctx(), bucket, 10167n, null)[0]!.quantity_units).toBe(167); // 61.002 min: 1.002 over → 0.0167 h
    expect(bucketItems(ctx(), bucket, 15000n, null)[0]!.quantity_units).toBe(5000); // 90 min: 30 over → 0.5 h
    expect(bucketItems(ctx({ custom_rate_cents: 100 }), bucket, 15000n, null)[0]!.unit_price_cents).toBe(100);
  });

  it("adds the previous period's unused minutes, capped, one period only", () => {
    const roll = { total_minutes: 600, overage_rate_cents: 15000, allow_rollover: true, rollover_cap_minutes: 120 };
    // Previous period used 5 h of 10: 300 unused, capped at 120 → 720 included; 12.5 h = 750 min → 30 over.
    const [capped] = bucketItems(ctx(), roll, 12_5000n, 5_0000n);
    expect(capped).toMatchObject({ quantity_units: 5000, source: { included_minutes: 600, rollover_minutes: 120, used_minutes: 750, overage_minutes: 30 } });
    const { rollover_cap_minutes: _cap, ...uncapped } = roll;
    expect(bucketItems(ctx(), uncapped, 12_5000n, 5_0000n)).toEqual([]); // 900 included
    expect(bucketItems(ctx(), uncapped, 15_5000n, 5_0000n)[0]!.quantity_units).toBe(5000); // 930 − 900
    expect(bucketItems(ctx(), roll, 12_5000n, 20_0000n)[0]!.source.rollover_minutes).toBe(0); // previous overran: nothing to carry
    expect(bucketItems(ctx(), roll, 12_5000n, null)[0]!.quantity_units).toBe(2_5000); // no previous period covered
    expect(bucketItems(ctx(), { ...roll, allow_rollover: false, rollover_cap_minutes: undefined }, 12_5000n, 0n)[0]!.quantity_units).toBe(2_5000);
  });
});
