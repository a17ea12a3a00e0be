import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { validation } from '../../../platform/http/errors.ts';
import { utcDate } from '../../../platform/time.ts';
import { portalClientId, requireVisibleClient } from '../../clients/index.ts';
import { currencyCode } from '../money.ts';
import { MAX_BUCKETS, bucketCount, buckets, firstOfMonthBefore } from './revenue.periods.ts';
import { amountsOf, invoiceFigures, type AmountRow, type RevenueScope } from './revenue.repo.ts';
import type { Revenue, RevenueFigures, RevenueQuery } from './revenue.schemas.ts';

/** A sum read as exact text, as a number: refused (a 500) rather than silently rounded past 2^53 − 1. */
function safeNumber(value: string | number, what: string): number {
  const exact = BigInt(value);
  if (exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`billing revenue: ${what} (${exact}) is beyond the safe integer range`);
  }
  return Number(exact);
}

const zero = (): RevenueFigures => ({
  invoiced_cents: 0, collected_cents: 0, credited_cents: 0, outstanding_cents: 0, overdue_cents: 0, invoice_count: 0,
});

/** Binary (code unit) order: the same on every engine and locale. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The totals row of a currency is keyed by '' (its bucket is null). */
const keyOf = (currency: string, bucket: string | null) => `${currency}|${bucket ?? ''}`;

/**
 * Invoiced, collected, credited, outstanding and overdue money per currency and calendar bucket of
 * [from, to], summed by the database (three grouped queries); `today` (UTC) decides what is overdue and the
 * default range.
 */
export async function revenueReport(db: Executor, actor: Actor, query: RevenueQuery, today: string = utcDate()): Promise<Revenue> {
  const interval = query.interval ?? 'month';
  const to = query.to ?? today;
  const from = query.from ?? firstOfMonthBefore(to, 11);
  // Validated YYYY-MM-DD strings: text order is date order.
  if (from > to) throw validation('querystring.from', 'must not be after to');
  const count = bucketCount(from, to, interval);
  if (count > MAX_BUCKETS) {
    throw validation('querystring.from', `[${from}, ${to}] spans ${count} ${interval} buckets; at most ${MAX_BUCKETS} are allowed`);
  }
  const currency = query.currency_code === undefined ? undefined : currencyCode(query.currency_code, 'querystring.currency_code');
  if (query.client_id !== undefined) await requireVisibleClient(db, actor, query.client_id);
  const scope: RevenueScope = { tenant: actor.tenant, clientId: query.client_id ?? portalClientId(actor), currency, from, to, interval, today };

  const [invoiced, collected, credited] = await Promise.all([invoiceFigures(db, scope), amountsOf(db, scope, 'collected'), amountsOf(db, scope, 'credited')]);

  const figures = new Map<string, RevenueFigures>();
  const at = (code: string, bucket: string | null): RevenueFigures => {
    const key = keyOf(code, bucket);
    let f = figures.get(key);
    if (!f) figures.set(key, (f = zero()));
    return f;
  };
  const currencies = new Set<string>();
  for (const r of invoiced) {
    currencies.add(r.currency_code);
    const f = at(r.currency_code, r.bucket);
    f.invoiced_cents = safeNumber(r.invoiced, 'invoiced_cents');
    f.invoice_count = safeNumber(r.invoice_count, 'invoice_count');
    f.outstanding_cents = safeNumber(r.outstanding, 'outstanding_cents');
    f.overdue_cents = safeNumber(r.overdue, 'overdue_cents');
  }
  const amounts = (rows: AmountRow[], field: 'collected_cents' | 'credited_cents') => {
    for (const r of rows) {
      currencies.add(r.currency_code);
      at(r.currency_code, r.bucket)[field] = safeNumber(r.amount, field);
    }
  };
  amounts(collected, 'collected_cents');
  amounts(credited, 'credited_cents');

  const periods = buckets(from, to, interval);
  return {
    from,
    to,
    interval,
    currencies: [...currencies].sort(byText).map((currency_code) => ({
      currency_code,
      periods: periods.map(({ key, period_start, period_end }) => ({
        period_start,
        period_end,
        ...(figures.get(keyOf(currency_code, key)) ?? zero()),
      })),
      totals: figures.get(keyOf(currency_code, null)) ?? zero(),
    })),
  };
}
