/**
 * numerator / denominator rounded to the nearest integer, ties to the even neighbour (banker's rounding),
 * computed exactly on bigints: 5/2 → 2, 7/2 → 4, -5/2 → -2, 13/12 → 1. The denominator must be positive;
 * the numerator may take any sign.
 */
export function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('roundHalfEven: the denominator must be positive');
  // BigInt division truncates toward zero; shift to the floor so that 0 <= remainder < denominator.
  let quotient = numerator / denominator;
  let remainder = numerator % denominator;
  if (remainder < 0n) {
    quotient -= 1n;
    remainder += denominator;
  }
  const twice = 2n * remainder;
  if (twice > denominator || (twice === denominator && quotient % 2n !== 0n)) quotient += 1n;
  return quotient;
}
