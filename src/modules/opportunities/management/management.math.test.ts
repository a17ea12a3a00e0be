import { describe, expect, it } from 'vitest';
import { BASE_RATES, attachRateOf, decimal4, periodOf, rateOf, stageRate, weighCents, calibrationOf, type ClosedDeal } from './management.math.ts';

describe('management arithmetic', () => {
  it('weighs cents half-to-even exactly', () => {
    expect(weighCents(10002, { num: 1n, den: 4n })).toBe(2500); // 2500.5 → 2500
    expect(weighCents(10006, { num: 1n, den: 4n })).toBe(2502); // 2501.5 → 2502
    expect(weighCents(20001, BASE_RATES.proposed)).toBe(10000); // 10000.5 → 10000
    expect(weighCents(1, BASE_RATES.assessment)).toBe(0); // 0.35
    expect(weighCents(1_000_000_000_000, BASE_RATES.verbal)).toBe(800_000_000_000);
  });

  it('shows rates with 4 decimals, null when nothing counted', () => {
    expect(decimal4({ num: 2n, den: 3n })).toBe(0.6667);
    expect(decimal4({ num: 1n, den: 20000n })).toBe(0); // 0.00005 → 0 (even)
    expect(decimal4({ num: 3n, den: 20000n })).toBe(0.0002); // 0.00015 → 0.0002 (even)
    expect(rateOf(0, 0)).toBeNull();
    expect(rateOf(1, 3)).toBe(0.3333);
  });

  it('checks the period: start ≤ end, at most five years', () => {
    expect(periodOf({ start: '2026-01-01', end: '2026-01-31' })).toEqual({
      start: '2026-01-01', end: '2026-01-31', startAt: new Date('2026-01-01T00:00:00.000Z'), endBefore: new Date('2026-02-01T00:00:00.000Z'),
    });
    expect(() => periodOf({ start: '2026-01-02', end: '2026-01-01' })).toThrow('must not be before start');
    expect(periodOf({ start: '2026-03-01', end: '2031-03-01' }).end).toBe('2031-03-01');
    expect(() => periodOf({ start: '2026-03-01', end: '2031-03-02' })).toThrow('at most 5 years');
  });

  it('calibrates a seller at 20 closed deals; an empty stage keeps the base rate', () => {
    const deal = (status: 'won' | 'lost', stage: ClosedDeal['stage_at_close']): ClosedDeal => ({
      opportunity_id: 'x', owner_id: 'o', status, confidence: 'medium', opportunity_type: 'new_logo', currency_code: 'USD', stage_at_close: stage, attached: status === 'won',
    });
    const nineteen = Array.from({ length: 19 }, (_, i) => deal(i < 4 ? 'won' : 'lost', 'qualified'));
    expect(stageRate(calibrationOf(nineteen), 'qualified')).toEqual({ rate: BASE_RATES.qualified, source: 'base' });
    const twenty = [...nineteen, deal('won', 'verbal')];
    expect(stageRate(calibrationOf(twenty), 'qualified')).toEqual({ rate: { num: 4n, den: 19n }, source: 'seller_calibration' });
    expect(stageRate(calibrationOf(twenty), 'verbal')).toEqual({ rate: { num: 1n, den: 1n }, source: 'seller_calibration' });
    expect(stageRate(calibrationOf(twenty), 'proposed')).toEqual({ rate: BASE_RATES.proposed, source: 'base' });
    expect(attachRateOf(twenty)).toEqual({ won_new_logo_count: 5, attached_count: 5, rate: 1 });
  });
});
