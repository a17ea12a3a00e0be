import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { InvoiceStatus } from '../../../platform/db/schema.billing.ts';
import type { Interval } from './revenue.periods.ts';

/** Which rows the figures cover: one tenant, a closed date window, optionally one client and one currency. */
export interface RevenueScope {
  tenant: string;
  clientId?: string;
  /** Upper-case ISO 4217. */
  currency?: string;
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
  interval: Interval;
  /** YYYY-MM-DD (UTC): a balance due before this day is overdue. */
  today: string;
}

/**
 * Figures per (currency, bucket), and per currency over the whole range (bucket null), from one
 * `grouping sets` query. Sums are exact text (a bigint sum is numeric), converted by the caller.
 */
export interface InvoiceFigureRow {
  currency_code: string;
  bucket: string | null;
  invoiced: string;
  invoice_count: number | string;
  outstanding: string;
  overdue: string;
}

export interface AmountRow {
  currency_code: string;
  bucket: string | null;
  amount: string;
}

/** Statuses whose balance is still owed. */
const OPEN: readonly InvoiceStatus[] = ['finalized', 'sent', 'partially_paid'];
/** Statuses that never count as invoiced. */
const NOT_INVOICED: readonly InvoiceStatus[] = ['draft', 'void'];

/**
 * The calendar start of the bucket holding a DATE column, computed by the database. The day is cast to
 * timestamp WITHOUT time zone so that the session's TimeZone plays no part; the unit is a whitelisted literal
 * (inlined, so the select and the grouping carry the same expression).
 */
const bucketOf = (column: string, interval: Interval): RawBuilder<string | null> =>
  sql<string | null>`date_trunc(${sql.lit(interval)}, ${sql.ref(column)}::timestamp)::date`;

/** (currency, bucket) and (currency) alone: the buckets and the range totals in one pass. */
const bucketsAndTotals = (currency: string, bucket: RawBuilder<string | null>) =>
  sql`grouping sets ((${sql.ref(currency)}, ${bucket}), (${sql.ref(currency)}))`;

const sumText = (expr: RawBuilder<unknown>) => sql<string>`coalesce(sum(${expr}), 0)::text`;

/** Invoiced, invoice count, outstanding and overdue: invoices neither draft nor void, by issue_date. */
export async function invoiceFigures(db: Executor, scope: RevenueScope): Promise<InvoiceFigureRow[]> {
  const bucket = bucketOf('i.issue_date', scope.interval);
  const open = sql`i.status in (${sql.join(OPEN.map((s) => sql.lit(s)))})`;
  let q = db
    .selectFrom('invoices as i')
    .where('i.tenant', '=', scope.tenant)
    .where('i.status', 'not in', NOT_INVOICED)
    .where('i.issue_date', '>=', scope.from)
    .where('i.issue_date', '<=', scope.to);
  if (scope.clientId !== undefined) q = q.where('i.client_id', '=', scope.clientId);
  if (scope.currency !== undefined) q = q.where('i.currency_code', '=', scope.currency);
  return q
    .groupBy(bucketsAndTotals('i.currency_code', bucket))
    .select([
      'i.currency_code',
      bucket.as('bucket'),
      sumText(sql`i.total_cents`).as('invoiced'),
      sql<number | string>`count(*)`.as('invoice_count'),
      sql<string>`coalesce(sum(i.balance_cents) filter (where ${open}), 0)::text`.as('outstanding'),
      sql<string>`coalesce(sum(i.balance_cents) filter (where ${open} and i.due_date < ${scope.today}::date), 0)::text`.as('overdue'),
    ])
    .execute();
}

/** The money tables summed by date: cash received (every payment not reversed, over-payments included) and credit notes. */
const AMOUNT_SOURCES = {
  collected: { table: 'invoice_payments', date: 'payment_date' },
  credited: { table: 'credit_notes', date: 'issue_date' },
} as const;

/** One money table's `amount_cents` per (currency, bucket) and per currency, each row in its own currency. */
export async function amountsOf(db: Executor, scope: RevenueScope, source: keyof typeof AMOUNT_SOURCES): Promise<AmountRow[]> {
  const { table, date } = AMOUNT_SOURCES[source];
  const bucket = bucketOf(`a.${date}`, scope.interval);
  const { rows } = await sql<AmountRow>`
    select a.currency_code, ${bucket} as bucket, ${sumText(sql`a.amount_cents`)} as amount
    from ${sql.table(table)} as a
    where a.tenant = ${scope.tenant} and ${sql.ref(`a.${date}`)} >= ${scope.from} and ${sql.ref(`a.${date}`)} <= ${scope.to}
      ${scope.clientId === undefined ? sql`` : sql`and a.client_id = ${scope.clientId}`}
      ${scope.currency === undefined ? sql`` : sql`and a.currency_code = ${scope.currency}`}
      ${source === 'collected' ? sql`and a.reversed_at is null` : sql``}
    group by ${bucketsAndTotals('a.currency_code', bucket)}
  `.execute(db);
  return rows;
}
