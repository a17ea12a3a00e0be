import { describe, expect, it } from 'vitest';
import { roundHalfEven } from './rounding.ts';

describe('roundHalfEven', () => {
  it('returns exact quotients unchanged', () => {
    expect(roundHalfEven(0n, 7n)).toBe(0n);
    expect(roundHalfEven(12n, 12n)).toBe(1n);
    expect(roundHalfEven(120_000n, 12n)).toBe(10_000n);
    expect(roundHalfEven(36n, 12n)).toBe(3n);
    expect(roundHalfEven(-36n, 12n)).toBe(-3n);
    expect(roundHalfEven(5n, 1n)).toBe(5n);
    expect(roundHalfEven(-5n, 1n)).toBe(-5n);
  });

  it('rounds below and above one half to the nearest integer', () => {
    expect(roundHalfEven(52_000n, 12n)).toBe(4333n); // 4333.33…
    expect(roundHalfEven(26_000n, 12n)).toBe(2167n); // 2166.66…
    expect(roundHalfEven(1n, 3n)).toBe(0n);
    expect(roundHalfEven(2n, 3n)).toBe(1n);
    expect(roundHalfEven(-1n, 3n)).toBe(0n);
    expect(roundHalfEven(-2n, 3n)).toBe(-1n);
    expect(roundHalfEven(49n, 100n)).toBe(0n);
    expect(roundHalfEven(51n, 100n)).toBe(1n);
  });

  it('sends exact halves to the even neighbour, both ways', () => {
    expect(roundHalfEven(1n, 2n)).toBe(0n); // 0.5 → 0
    expect(roundHalfEven(3n, 2n)).toBe(2n); // 1.5 → 2
    expect(roundHalfEven(5n, 2n)).toBe(2n); // 2.5 → 2
    expect(roundHalfEven(7n, 2n)).toBe(4n); // 3.5 → 4
    expect(roundHalfEven(6n, 12n)).toBe(0n); // 0.5 → 0
    expect(roundHalfEven(18n, 12n)).toBe(2n); // 1.5 → 2
    expect(roundHalfEven(30n, 12n)).toBe(2n); // 2.5 → 2
    expect(roundHalfEven(1_002n, 12n)).toBe(84n); // 83.5 → 84
    expect(roundHalfEven(990n, 12n)).toBe(82n); // 82.5 → 82
  });

  it('handles negative numerators symmetrically (ties still to even)', () => {
    expect(roundHalfEven(-1n, 2n)).toBe(0n); // -0.5 → 0
    expect(roundHalfEven(-3n, 2n)).toBe(-2n); // -1.5 → -2
    expect(roundHalfEven(-5n, 2n)).toBe(-2n); // -2.5 → -2
    expect(roundHalfEven(-7n, 2n)).toBe(-4n); // -3.5 → -4
    expect(roundHalfEven(-52_000n, 12n)).toBe(-4333n); // -4333.33…
    expect(roundHalfEven(-26_000n, 12n)).toBe(-2167n); // -2166.66…
  });

  it('stays exact beyond 2^53', () => {
    const big = 2n ** 64n; // 18446744073709551616
    expect(roundHalfEven(big, 1n)).toBe(big);
    expect(roundHalfEven(big * 12n + 6n, 12n)).toBe(big); // big + 0.5, big is even → big
    expect(roundHalfEven(big * 12n + 18n, 12n)).toBe(big + 2n); // big + 1.5 → big + 2
    expect(roundHalfEven((big + 1n) * 2n + 1n, 2n)).toBe(big + 2n); // (big + 1) + 0.5 → big + 2 (even)
    expect(roundHalfEven(-(big * 12n + 6n), 12n)).toBe(-big);
    expect(roundHalfEven(big * 12n + 7n, 12n)).toBe(big + 1n);
    // 10^12 cents weekly on 100 000 lines: Σ rate × 52 does not fit a double exactly, the quotient is still exact.
    const sum = 10n ** 12n * 52n * 100_000n + 1n;
    expect(roundHalfEven(sum, 12n)).toBe(433_333_333_333_333_333n);
    expect(Number.isSafeInteger(Number(sum))).toBe(false);
  });

  it('refuses a denominator that is not positive', () => {
    expect(() => roundHalfEven(1n, 0n)).toThrow(RangeError);
    expect(() => roundHalfEven(1n, -2n)).toThrow(RangeError);
  });
});
