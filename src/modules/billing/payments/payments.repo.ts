import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ClientCreditEntriesTable, CreditNotesTable, InvoicePaymentsTable, PaymentMethod } from '../../../platform/db/schema.billing.ts';
import { defineList } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';

export type PaymentRow = Selectable<InvoicePaymentsTable> & { invoice_number: string | null };
export type CreditNoteRow = Selectable<CreditNotesTable> & { invoice_number: string | null };
export type CreditEntryRow = Selectable<ClientCreditEntriesTable>;

const num = (v: unknown): number => Number(v ?? 0);

function paymentView(db: Executor, tenant: string) {
  return db
    .selectFrom('invoice_payments as p')
    .innerJoin('invoices as i', (j) => j.onRef('i.tenant', '=', 'p.tenant').onRef('i.invoice_id', '=', 'p.invoice_id'))
    .where('p.tenant', '=', tenant)
    .selectAll('p')
    .select('i.invoice_number');
}

export async function findPayment(db: Executor, tenant: string, id: string): Promise<PaymentRow | undefined> {
  return paymentView(db, tenant).where('p.payment_id', '=', id).executeTakeFirst();
}

export interface PaymentFilter {
  invoiceId?: string;
  clientId?: string;
  method?: PaymentMethod;
  from?: string;
  to?: string;
}

export function paymentList(db: Executor, tenant: string, f: PaymentFilter) {
  const filtered = <Q extends ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.invoiceId) r = r.where('p.invoice_id', '=', f.invoiceId);
    if (f.clientId) r = r.where('p.client_id', '=', f.clientId);
    if (f.method) r = r.where('p.method', '=', f.method);
    if (f.from) r = r.where('p.payment_date', '>=', f.from);
    if (f.to) r = r.where('p.payment_date', '<=', f.to);
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('invoice_payments as p').where('p.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(paymentView(db, tenant)),
    sorts: { payment_date: ['p.payment_date', 'p.created_at'], amount_cents: ['p.amount_cents'], created_at: ['p.created_at'], updated_at: ['p.updated_at'] },
    defaultSort: 'payment_date',
    defaultOrder: 'desc',
    tieBreaker: 'p.payment_id',
    updatedAt: 'p.updated_at',
  });
}

export async function insertPayment(db: Executor, row: Insertable<InvoicePaymentsTable>): Promise<void> {
  await db.insertInto('invoice_payments').values(row).execute();
}

function creditNoteView(db: Executor, tenant: string) {
  return db
    .selectFrom('credit_notes as n')
    .innerJoin('invoices as i', (j) => j.onRef('i.tenant', '=', 'n.tenant').onRef('i.invoice_id', '=', 'n.invoice_id'))
    .where('n.tenant', '=', tenant)
    .selectAll('n')
    .select('i.invoice_number');
}

export async function findCreditNote(db: Executor, tenant: string, id: string): Promise<CreditNoteRow | undefined> {
  return creditNoteView(db, tenant).where('n.credit_note_id', '=', id).executeTakeFirst();
}

export function creditNoteList(db: Executor, tenant: string, f: { invoiceId?: string; clientId?: string; from?: string; to?: string }) {
  let from = db.selectFrom('credit_notes as n').where('n.tenant', '=', tenant);
  let page = creditNoteView(db, tenant);
  if (f.invoiceId) [from, page] = [from.where('n.invoice_id', '=', f.invoiceId), page.where('n.invoice_id', '=', f.invoiceId)];
  if (f.clientId) [from, page] = [from.where('n.client_id', '=', f.clientId), page.where('n.client_id', '=', f.clientId)];
  if (f.from) [from, page] = [from.where('n.issue_date', '>=', f.from), page.where('n.issue_date', '>=', f.from)];
  if (f.to) [from, page] = [from.where('n.issue_date', '<=', f.to), page.where('n.issue_date', '<=', f.to)];
  return defineList({
    from,
    page,
    sorts: { issue_date: ['n.issue_date', 'n.created_at'], credit_note_number: ['n.credit_note_number'], amount_cents: ['n.amount_cents'], created_at: ['n.created_at'], updated_at: ['n.updated_at'] },
    defaultSort: 'issue_date',
    defaultOrder: 'desc',
    tieBreaker: 'n.credit_note_id',
    updatedAt: 'n.updated_at',
  });
}

export async function insertCreditNote(db: Executor, row: Insertable<CreditNotesTable>): Promise<void> {
  await db.insertInto('credit_notes').values(row).execute();
}

/** Σ of the credit notes issued against an invoice (an invoice is never credited beyond its total). */
export async function creditNotesTotal(db: Executor, tenant: string, invoiceId: string): Promise<number> {
  const row = await db.selectFrom('credit_notes').select((eb) => eb.fn.sum<number>('amount_cents').as('n')).where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).executeTakeFirst();
  return num(row?.n);
}

/** What credit notes against an invoice turned into client credit: the payments they reversed. */
export async function reversedByCreditNotes(db: Executor, tenant: string, invoiceId: string): Promise<number> {
  const row = await db.selectFrom('credit_notes').select((eb) => eb.fn.sum<number>('to_credit_cents').as('n')).where('tenant', '=', tenant).where('invoice_id', '=', invoiceId).executeTakeFirst();
  return num(row?.n);
}

/** Client credit applied to an invoice, net of what was given back. */
export async function creditAppliedTo(db: Executor, tenant: string, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('client_credit_entries')
    .select((eb) => eb.fn.sum<number>('amount_cents').as('n'))
    .where('tenant', '=', tenant)
    .where('invoice_id', '=', invoiceId)
    .where('kind', '=', 'applied')
    .executeTakeFirst();
  return -num(row?.n);
}

export async function insertCreditEntry(db: Executor, row: Omit<Insertable<ClientCreditEntriesTable>, 'entry_id'>): Promise<void> {
  await db.insertInto('client_credit_entries').values({ ...row, entry_id: newId() }).execute();
}

/** Gives the client credit applied to a voided invoice back to its billing profile. */
export async function returnCredit(db: Executor, invoice: { tenant: string; invoice_id: string; client_id: string; billing_profile_id: string; currency_code: string }, cents: number, userId: string | null): Promise<void> {
  await insertCreditEntry(db, {
    tenant: invoice.tenant,
    client_id: invoice.client_id,
    billing_profile_id: invoice.billing_profile_id,
    currency_code: invoice.currency_code,
    amount_cents: cents,
    kind: 'applied',
    invoice_id: invoice.invoice_id,
    created_by: userId,
  });
}

/**
 * Holds a billing profile's credit in one currency until the transaction ends, so two invoices can never
 * spend the same credit.
 */
export async function lockCredit(db: Executor, tenant: string, profileId: string, currency: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`client-credit:${tenant}:${profileId}:${currency}`}, 0))`.execute(db);
}

export async function creditBalance(db: Executor, tenant: string, profileId: string, currency: string): Promise<number> {
  const row = await db
    .selectFrom('client_credit_entries')
    .select((eb) => eb.fn.sum<number>('amount_cents').as('n'))
    .where('tenant', '=', tenant)
    .where('billing_profile_id', '=', profileId)
    .where('currency_code', '=', currency)
    .executeTakeFirst();
  return num(row?.n);
}

/** A client's credit per billing profile and currency (profiles with no entries are absent). */
export async function creditBalances(db: Executor, tenant: string, clientId: string) {
  const rows = await db
    .selectFrom('client_credit_entries as e')
    .innerJoin('client_billing_profiles as bp', (j) => j.onRef('bp.tenant', '=', 'e.tenant').onRef('bp.billing_profile_id', '=', 'e.billing_profile_id'))
    .select(['e.billing_profile_id', 'bp.name as billing_profile_name', 'e.currency_code'])
    .select((eb) => eb.fn.sum<number>('e.amount_cents').as('balance_cents'))
    .where('e.tenant', '=', tenant)
    .where('e.client_id', '=', clientId)
    .groupBy(['e.billing_profile_id', 'bp.name', 'e.currency_code'])
    .orderBy('bp.name')
    .orderBy('e.currency_code')
    .execute();
  return rows.map((r) => ({ ...r, balance_cents: num(r.balance_cents) }));
}

export function creditEntryList(db: Executor, tenant: string, clientId: string) {
  const from = db.selectFrom('client_credit_entries').where('tenant', '=', tenant).where('client_id', '=', clientId);
  return defineList({
    from,
    page: from.selectAll(),
    sorts: { created_at: ['created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'entry_id',
    // Ledger entries are immutable (a correction is a new entry).
    updatedAt: 'created_at',
  });
}
