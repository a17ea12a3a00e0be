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

/** Cash received: every payment, over-payments included, in the payment's currency, by payment_date. */
export async function collectedAmounts(db: Executor, scope: RevenueScope): Promise<AmountRow[]> {
  const bucket = bucketOf('p.payment_date', scope.interval);
  let q = db
    .selectFrom('invoice_payments as p')
    .where('p.tenant', '=', scope.tenant)
    .where('p.payment_date', '>=', scope.from)
    .where('p.payment_date', '<=', scope.to);
  if (scope.clientId !== undefined) q = q.where('p.client_id', '=', scope.clientId);
  if (scope.currency !== undefined) q = q.where('p.currency_code', '=', scope.currency);
  return q
    .groupBy(bucketsAndTotals('p.currency_code', bucket))
    .select(['p.currency_code', bucket.as('bucket'), sumText(sql`p.amount_cents`).as('amount')])
    .execute();
}

/** Credit notes, in their currency, by their issue_date. */
export async function creditedAmounts(db: Executor, scope: RevenueScope): Promise<AmountRow[]> {
  const bucket = bucketOf('n.issue_date', scope.interval);
  let q = db
    .selectFrom('credit_notes as n')
    .where('n.tenant', '=', scope.tenant)
    .where('n.issue_date', '>=', scope.from)
    .where('n.issue_date', '<=', scope.to);
  if (scope.clientId !== undefined) q = q.where('n.client_id', '=', scope.clientId);
  if (scope.currency !== undefined) q = q.where('n.currency_code', '=', scope.currency);
  return q
    .groupBy(bucketsAndTotals('n.currency_code', bucket))
    .select(['n.currency_code', bucket.as('bucket'), sumText(sql`n.amount_cents`).as('amount')])
    .execute();
}
