import { Type, type Static } from 'typebox';
import { DateOnly, dataOf } from '../../../platform/http/schemas.ts';
import { CurrencyCode } from '../money.ts';
import { INTERVALS, MAX_BUCKETS } from './revenue.periods.ts';

export const RevenueQuery = Type.Object(
  {
    from: Type.Optional(Type.String({
      format: 'date',
      description: 'YYYY-MM-DD, first day counted (default: the first day of the month 11 months before `to`\'s month); must not be after `to` (400)',
    })),
    to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD, last day counted (default: today, UTC)' })),
    interval: Type.Optional(Type.Enum([...INTERVALS], { description: `Bucket size (default month); at most ${MAX_BUCKETS} buckets per request` })),
    client_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only this client\'s figures; a client not in the tenant (or not visible to a client-portal key) is a 404' })),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: 'Only this ISO 4217 currency (any case); an unknown code is a 400' })),
  },
  {
    additionalProperties: false,
    description: 'All optional. A client-portal key is always scoped to its own client.',
  },
);
export type RevenueQuery = Static<typeof RevenueQuery>;

const Amount = (what: string) =>
  Type.Integer({ minimum: 0, description: `${what}, in integer cents of the currency's minor unit (1234 = 12.34)` });

const figures = {
  invoiced_cents: Amount('Σ total_cents of invoices neither draft nor void, by issue_date'),
  collected_cents: Amount('Σ payments received (over-payments included), by payment_date'),
  credited_cents: Amount('Σ credit notes, by their issue_date'),
  outstanding_cents: Amount('Σ balance_cents now of finalized, sent and partially paid invoices, by issue_date'),
  overdue_cents: Amount('The part of outstanding_cents whose due_date is before today (UTC)'),
  invoice_count: Type.Integer({ minimum: 0, description: 'Invoices counted in invoiced_cents' }),
};

export const RevenueFigures = Type.Object(figures);
export type RevenueFigures = Static<typeof RevenueFigures>;

const Period = Type.Object({
  period_start: Type.String({ format: 'date', description: 'YYYY-MM-DD: the calendar start of the bucket, or `from` for the first' }),
  period_end: Type.String({ format: 'date', description: 'YYYY-MM-DD: the calendar end of the bucket, or `to` for the last' }),
  ...figures,
});

const CurrencyRevenue = Type.Object({
  currency_code: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 currency code (upper-case)' }),
  periods: Type.Array(Period, { maxItems: MAX_BUCKETS, description: 'Every bucket of [from, to] in order, zeros included' }),
  totals: Type.Object(figures, { description: 'The figures over the whole range' }),
});

export const Revenue = Type.Object(
  {
    from: DateOnly,
    to: DateOnly,
    interval: Type.Enum([...INTERVALS]),
    currencies: Type.Array(CurrencyRevenue, {
      description: 'One entry per currency with any figure in the range, sorted by currency_code; amounts are never summed across currencies',
    }),
  },
  { description: 'Invoiced, collected, credited, outstanding and overdue money per currency and calendar bucket, computed at request time' },
);
export type Revenue = Static<typeof Revenue>;

export const RevenueResponse = dataOf(Revenue);
