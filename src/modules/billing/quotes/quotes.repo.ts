import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { QuoteItemsTable, QuotesTable, QuoteStatus } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';

export type QuoteRow = Selectable<QuotesTable> & { client_name: string; current_status: QuoteStatus };
export type QuoteItemRow = Selectable<QuoteItemsTable> & { service_name: string | null; tax_rate_name: string | null };

/**
 * The status a quote is in now: a sent quote whose valid_until has passed (today in UTC) is expired. The
 * stored status never says expired; every read and every transition goes through this.
 */
const currentStatus = sql<QuoteStatus>`(case when ${sql.ref('q.status')} = 'sent' and ${sql.ref('q.valid_until')} < (now() at time zone 'utc')::date then 'expired' else ${sql.ref('q.status')} end)`;

function quoteView(db: Executor, tenant: string) {
  return db
    .selectFrom('quotes as q')
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'q.tenant').onRef('c.client_id', '=', 'q.client_id'))
    .where('q.tenant', '=', tenant)
    .selectAll('q')
    .select(['c.client_name', currentStatus.as('current_status')]);
}

export async function findQuote(db: Executor, tenant: string, id: string, lock = false): Promise<QuoteRow | undefined> {
  let q = quoteView(db, tenant).where('q.quote_id', '=', id);
  if (lock) q = q.forUpdate('q');
  return q.executeTakeFirst();
}

export interface QuoteFilter {
  clientId?: string;
  /** Client-portal scope: this client's quotes, never drafts. */
  onlyClientId?: string;
  status?: QuoteStatus;
  from?: string;
  to?: string;
  search?: string;
}

export function quoteList(db: Executor, tenant: string, f: QuoteFilter) {
  const filtered = <Q extends ReturnType<typeof quoteView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.clientId) r = r.where('q.client_id', '=', f.clientId);
    if (f.onlyClientId) r = r.where('q.client_id', '=', f.onlyClientId).where('q.status', '<>', 'draft');
    if (f.status) r = r.where(currentStatus, '=', f.status);
    if (f.from) r = r.where('q.issue_date', '>=', f.from);
    if (f.to) r = r.where('q.issue_date', '<=', f.to);
    if (f.search) {
      const pattern = likePattern(f.search);
      r = r.where((eb) => eb.or([eb('q.title', 'ilike', pattern), eb('q.quote_number', 'ilike', pattern)]));
    }
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('quotes as q').where('q.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(quoteView(db, tenant)),
    sorts: {
      issue_date: ['q.issue_date', 'q.created_at'],
      valid_until: ['q.valid_until', 'q.created_at'],
      total_cents: ['q.total_cents'],
      // 'Q-10000' after 'Q-9999': shorter numbers first, then by text.
      quote_number: [sql`length(q.quote_number)`, 'q.quote_number'],
      created_at: ['q.created_at'],
      updated_at: ['q.updated_at'],
    },
    defaultSort: 'issue_date',
    defaultOrder: 'desc',
    tieBreaker: 'q.quote_id',
    updatedAt: 'q.updated_at',
  });
}

export async function insertQuote(db: Executor, row: Insertable<QuotesTable>): Promise<void> {
  await db.insertInto('quotes').values(row).execute();
}

export async function updateQuote(db: Executor, tenant: string, id: string, set: Updateable<QuotesTable>): Promise<void> {
  await db.updateTable('quotes').set(set).where('tenant', '=', tenant).where('quote_id', '=', id).execute();
}

export async function deleteQuote(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('quotes').where('tenant', '=', tenant).where('quote_id', '=', id).execute();
}

function itemView(db: Executor, tenant: string) {
  return db
    .selectFrom('quote_items as i')
    .leftJoin('service_catalog as s', (j) => j.onRef('s.tenant', '=', 'i.tenant').onRef('s.service_id', '=', 'i.service_id'))
    .leftJoin('tax_rates as r', (j) => j.onRef('r.tenant', '=', 'i.tenant').onRef('r.tax_rate_id', '=', 'i.tax_rate_id'))
    .where('i.tenant', '=', tenant)
    .selectAll('i')
    .select(['s.service_name', 'r.name as tax_rate_name']);
}

/** A quote's items in display order. */
export async function itemsOfQuote(db: Executor, tenant: string, quoteId: string): Promise<QuoteItemRow[]> {
  return itemView(db, tenant).where('i.quote_id', '=', quoteId).orderBy('i.display_order').orderBy('i.created_at').orderBy('i.item_id').execute();
}

export async function findQuoteItem(db: Executor, tenant: string, quoteId: string, itemId: string): Promise<QuoteItemRow | undefined> {
  return itemView(db, tenant).where('i.quote_id', '=', quoteId).where('i.item_id', '=', itemId).executeTakeFirst();
}

export async function insertQuoteItems(db: Executor, rows: readonly Insertable<QuoteItemsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('quote_items').values([...rows]).execute();
}

export async function updateQuoteItem(db: Executor, tenant: string, itemId: string, set: Updateable<QuoteItemsTable>): Promise<void> {
  await db.updateTable('quote_items').set(set).where('tenant', '=', tenant).where('item_id', '=', itemId).execute();
}

export async function deleteQuoteItem(db: Executor, tenant: string, itemId: string): Promise<void> {
  await db.deleteFrom('quote_items').where('tenant', '=', tenant).where('item_id', '=', itemId).execute();
}

/** The display order after the quote's last item. */
export async function nextItemOrder(db: Executor, tenant: string, quoteId: string): Promise<number> {
  const r = await db
    .selectFrom('quote_items')
    .select((eb) => eb.fn.max('display_order').as('m'))
    .where('tenant', '=', tenant)
    .where('quote_id', '=', quoteId)
    .executeTakeFirst();
  return r?.m === null || r?.m === undefined ? 0 : Number(r.m) + 1;
}
