import cc from 'currency-codes';

/** Groups an unsigned run of digits in threes: "1234567" → "1,234,567". */
function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The currency's minor-unit digits (USD 2, JPY 0, BHD 3); an unknown code is a caller bug, so it throws. */
function minorDigits(currencyCode: string): number {
  const record = cc.code(currencyCode.toUpperCase());
  if (!record) throw new RangeError(`'${currencyCode}' is not an ISO 4217 currency code`);
  return record.digits;
}

/**
 * An amount in the currency's minor unit as "USD 1,234.56", "JPY 1,235", "BHD 1.234" or "-USD 5.00".
 * The decimal point is placed by string arithmetic on the integer, so no float ever touches the amount.
 */
export function formatMoney(cents: number, currencyCode: string): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${cents} is not an integer amount of minor units`);
  const digits = minorDigits(currencyCode);
  const magnitude = BigInt(cents < 0 ? -cents : cents).toString().padStart(digits + 1, '0');
  const whole = groupThousands(magnitude.slice(0, magnitude.length - digits));
  const amount = digits === 0 ? whole : `${whole}.${magnitude.slice(magnitude.length - digits)}`;
  return `${cents < 0 ? '-' : ''}${currencyCode.toUpperCase()} ${amount}`;
}

/** A quantity to at most four decimals with trailing zeros dropped: 1.5 → "1.5", 2 → "2", 0.125 → "0.125". */
export function formatQuantity(q: number): string {
  if (!Number.isFinite(q)) throw new RangeError(`${q} is not a quantity`);
  // Quantities are stored to four decimals, so toFixed(4) reproduces them; it also rounds away float noise.
  const fixed = q.toFixed(4).replace(/\.?0+$/, '');
  return fixed === '-0' ? '0' : fixed;
}
