import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { InvoiceAnnotationsTable, InvoiceItemsTable, InvoiceStatus, InvoicesTable } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';
import { likePattern } from '../../../platform/db/like.ts';

export type InvoiceRow = Selectable<InvoicesTable> & { client_name: string; billing_profile_name: string };
export type InvoiceItemRow = Selectable<InvoiceItemsTable>;
export type AnnotationRow = Selectable<InvoiceAnnotationsTable>;

/** Rows are written in chunks so one statement never carries more than PostgreSQL's 65,535 parameters. */
const CHUNK = 1000;

export async function insertInvoices(db: Executor, rows: readonly Insertable<InvoicesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await db.insertInto('invoices').values(rows.slice(i, i + CHUNK)).execute();
}

export async function insertInvoiceItems(db: Executor, rows: readonly Insertable<InvoiceItemsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await db.insertInto('invoice_items').values(rows.slice(i, i + CHUNK)).execute();
}

export async function updateInvoice(db: Executor, tenant: string, id: string, set: Updateable<InvoicesTable>): Promise<void> {
  await db.updateTable('invoices').set(set).where('tenant', '=', tenant).where('invoice_id', '=', id).execute();
}

function invoiceView(db: Executor, tenant: string) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'i.tenant').onRef('c.client_id', '=', 'i.client_id'))
    .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'i.tenant').onRef('bp.billing_profile_id', '=', 'i.billing_profile_id'))
    .where('i.tenant', '=', tenant)
    .selectAll('i')
    .select(['c.client_name', 'bp.name as billing_profile_name']);
}

export async function findInvoice(db: Executor, tenant: string, id: string, lock = false): Promise<InvoiceRow | undefined> {
  let q = invoiceView(db, tenant).where('i.invoice_id', '=', id);
  if (lock) q = q.forUpdate('i');
  return q.executeTakeFirst();
}

/** Statuses whose balance is still owed. */
export const OPEN_STATUSES = ['finalized', 'sent', 'partially_paid'] as const;

export interface InvoiceFilter {
  status?: InvoiceStatus;
  clientId?: string;
  /** A portal actor's own client: only its invoices past draft. */
  portalClientId?: string;
  billingProfileId?: string;
  currencyCode?: string;
  from?: string;
  to?: string;
  /** With `today`: overdue = open, a balance, due before today. */
  overdue?: boolean;
  today: string;
  search?: string;
}

export function invoiceList(db: Executor, tenant: string, f: InvoiceFilter) {
  const bare = (d: Executor) =>
    d
      .selectFrom('invoices as i')
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'i.tenant').onRef('c.client_id', '=', 'i.client_id'))
      .where('i.tenant', '=', tenant);
  const filtered = <Q extends ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.status) r = r.where('i.status', '=', f.status);
    if (f.clientId) r = r.where('i.client_id', '=', f.clientId);
    if (f.portalClientId) r = r.where('i.client_id', '=', f.portalClientId).where('i.status', '<>', 'draft');
    if (f.billingProfileId) r = r.where('i.billing_profile_id', '=', f.billingProfileId);
    if (f.currencyCode) r = r.where('i.currency_code', '=', f.currencyCode);
    if (f.from) r = r.where('i.issue_date', '>=', f.from);
    if (f.to) r = r.where('i.issue_date', '<=', f.to);
    if (f.overdue !== undefined) {
      const overdue = (eb: ExpressionBuilder<DB & { i: InvoicesTable }, 'i'>) =>
        eb.and([eb('i.status', 'in', OPEN_STATUSES), eb('i.balance_cents', '>', 0), eb('i.due_date', '<', f.today)]);
      r = r.where((eb) => (f.overdue ? overdue(eb as never) : eb.not(overdue(eb as never))));
    }
    if (f.search) {
      const p = likePattern(f.search);
      r = r.where((eb) => eb.or([eb('i.invoice_number', 'ilike', p), eb('i.po_number', 'ilike', p), eb('c.client_name', 'ilike', p)]));
    }
    return r as Q;
  };
  return defineList({
    from: filtered(bare(db)),
    page: filtered(bare(db))
      .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'i.tenant').onRef('bp.billing_profile_id', '=', 'i.billing_profile_id'))
      .selectAll('i')
      .select(['c.client_name', 'bp.name as billing_profile_name']),
    sorts: {
      issue_date: ['i.issue_date', 'i.created_at'],
      due_date: ['i.due_date'],
      invoice_number: [{ by: 'i.invoice_number', nullsLast: true }],
      total_cents: ['i.total_cents'],
      balance_cents: ['i.balance_cents'],
      created_at: ['i.created_at'],
      updated_at: ['i.updated_at'],
    },
    defaultSort: 'issue_date',
    defaultOrder: 'desc',
    tieBreaker: 'i.invoice_id',
    updatedAt: 'i.updated_at',
  });
}

export async function deleteInvoice(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('invoices').where('tenant', '=', tenant).where('invoice_id', '=', id).execute();
}

/**
 * A draft's totals from its items, in one statement: subtotal and tax are the sums of the rounded lines, so
 * they always equal what the lines show.
 */
export async function recomputeDraftTotals(db: Executor, tenant: string, id: string): Promise<void> {
  await sql`
    update invoices i set
      subtotal_cents = s.sub, tax_cents = s.tax, total_cents = s.sub + s.tax,
      balance_cents = s.sub + s.tax - i.amount_paid_cents - i.credited_cents, updated_at = now()
    from (select coalesce(sum(total_cents), 0) as sub, coalesce(sum(tax_cents), 0) as tax from invoice_items where tenant = ${tenant} and invoice_id = ${id}) s
    where i.tenant = ${tenant} and i.invoice_id = ${id}
  `.execute(db);
}

const itemsOf = (db: Executor, tenant: string) => db.selectFrom('invoice_items').selectAll().where('tenant', '=', tenant);

export async function itemsOfInvoices(db: Executor, tenant: string, ids: readonly string[]): Promise<Map<string, InvoiceItemRow[]>> {
  const map = new Map<string, InvoiceItemRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return map;
  const rows = await itemsOf(db, tenant).where('invoice_id', 'in', ids).orderBy('display_order').orderBy('created_at').orderBy('item_id').execute();
  for (const r of rows) map.get(r.invoice_id)!.push(r);
  return map;
}

export function itemList(db: Executor, tenant: string, invoiceId: string) {
  const q = itemsOf(db, tenant).where('invoice_id', '=', invoiceId);
  return defineList({
    from: db.selectFrom('invoice_items').where('tenant', '=', tenant).where('invoice_id', '=', invoiceId),
    page: q,
    sorts: { display_order: ['display_order', 'created_at'], created_at: ['created_at'], updated_at: ['updated_at'] },
    defaultSort: 'display_order',
    defaultOrder: 'asc',
    tieBreaker: 'item_id',
    updatedAt: 'updated_at',
  });
}

export async function findItem(db: Executor, tenant: string, invoiceId: string, itemId: string): Promise<InvoiceItemRow | undefined> {
  return itemsOf(db, tenant).where('invoice_id', '=', invoiceId).where('item_id', '=', itemId).executeTakeFirst();
}

export async function nextItemOrder(db: Executor, tenant: string, invoiceId: string): Promise<number> {
  const row = await db.selectFrom('invoice_items').select((eb) => eb.fn.max('display_order').as('m')).where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).executeTakeFirst();
  return row?.m === null || row?.m === undefined ? 0 : Number(row.m) + 1;
}

export async function updateItem(db: Executor, tenant: string, itemId: string, set: Updateable<InvoiceItemsTable>): Promise<void> {
  await db.updateTable('invoice_items').set(set).where('tenant', '=', tenant).where('item_id', '=', itemId).execute();
}

export async function deleteItem(db: Executor, tenant: string, itemId: string): Promise<void> {
  await db.deleteFrom('invoice_items').where('tenant', '=', tenant).where('item_id', '=', itemId).execute();
}

export function annotationList(db: Executor, tenant: string, invoiceId: string, clientVisibleOnly: boolean) {
  let from = db.selectFrom('invoice_annotations').where('tenant', '=', tenant).where('invoice_id', '=', invoiceId);
  if (clientVisibleOnly) from = from.where('is_internal', '=', false);
  return defineList({
    from,
    page: from.selectAll(),
    sorts: { created_at: ['created_at'], updated_at: ['updated_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'asc',
    tieBreaker: 'annotation_id',
    updatedAt: 'updated_at',
  });
}

export async function annotationIdsOf(db: Executor, tenant: string, invoiceId: string): Promise<string[]> {
  const rows = await db.selectFrom('invoice_annotations').select('annotation_id').where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).execute();
  return rows.map((r) => r.annotation_id);
}

export async function clientVisibleNotes(db: Executor, tenant: string, invoiceId: string): Promise<string[]> {
  const rows = await db.selectFrom('invoice_annotations').select('content').where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).where('is_internal', '=', false).orderBy('created_at').execute();
  return rows.map((r) => r.content);
}

export async function findAnnotation(db: Executor, tenant: string, invoiceId: string, id: string): Promise<AnnotationRow | undefined> {
  return db.selectFrom('invoice_annotations').selectAll().where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).where('annotation_id', '=', id).executeTakeFirst();
}

export async function insertAnnotation(db: Executor, row: Insertable<InvoiceAnnotationsTable>): Promise<void> {
  await db.insertInto('invoice_annotations').values(row).execute();
}

export async function updateAnnotation(db: Executor, tenant: string, id: string, set: Updateable<InvoiceAnnotationsTable>): Promise<void> {
  await db.updateTable('invoice_annotations').set(set).where('tenant', '=', tenant).where('annotation_id', '=', id).execute();
}

export async function deleteAnnotation(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('invoice_annotations').where('tenant', '=', tenant).where('annotation_id', '=', id).execute();
}
