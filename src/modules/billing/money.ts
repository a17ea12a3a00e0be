import cc from 'currency-codes';
import { Type } from 'typebox';
import type { Executor } from '../../platform/db/executor.ts';
import { validation } from '../../platform/http/errors.ts';

/** The largest amount any money field takes: 10^12 cents (ten billion in the major unit). */
export const MAX_CENTS = 1_000_000_000_000;

/** An amount of money: integer cents (the currency's minor unit), never a float. */
export const Cents = (what: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_CENTS, description: `${what}, in integer cents of the currency's minor unit (1234 = 12.34)` });

export const CurrencyCode = Type.String({ pattern: '^[A-Za-z]{3}$', minLength: 3, maxLength: 3, description: 'ISO 4217 code; stored upper-case' });

/** The ISO 4217 code, upper-cased; an unknown code is a 400 naming the field. */
export function currencyCode(code: string, path: string): string {
  const upper = code.toUpperCase();
  if (!cc.code(upper)) throw validation(path, `'${code}' is not an ISO 4217 currency code`);
  return upper;
}

/** The tenant's billing currency (USD until its billing settings say otherwise). */
export async function tenantCurrency(db: Executor, tenant: string): Promise<string> {
  const row = await db.selectFrom('billing_settings').select('default_currency_code').where('tenant', '=', tenant).executeTakeFirst();
  return row?.default_currency_code ?? 'USD';
}
