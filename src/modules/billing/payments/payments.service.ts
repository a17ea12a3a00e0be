import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { canSeeClient, portalClientId, requireVisibleClient } from '../../clients/index.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { invoiceLabel, toInvoice } from '../invoices/invoices.mapper.ts';
import { findInvoice, OPEN_STATUSES, updateInvoice, type InvoiceRow } from '../invoices/invoices.repo.ts';
import { assertStatus, visibleInvoice } from '../invoices/invoices.service.ts';
import { takeNumber } from '../settings/numbering.ts';
import {
  creditBalance,
  creditBalances,
  creditEntryList,
  creditNoteList,
  creditNotesTotal,
  findCreditNote,
  findPayment,
  insertCreditEntry,
  insertCreditNote,
  insertPayment,
  lockCredit,
  paymentList,
  type CreditEntryRow,
  type CreditNoteRow,
  type PaymentRow,
} from './payments.repo.ts';
import type {
  ApplyCreditBody,
  CreditEntry,
  CreditNote,
  IssueCreditNoteBody,
  ListCreditEntriesQuery,
  ListCreditNotesQuery,
  ListInvoicePaymentsQuery,
  ListPaymentsQuery,
  Payment,
  RecordPaymentBody,
  ReversePaymentBody,
} from './payments.schemas.ts';

const toPayment = ({ tenant: _t, ...r }: PaymentRow): Payment => ({ ...r, reversed_at: r.reversed_at ? iso(r.reversed_at) : null, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });
const toCreditNote = ({ tenant: _t, ...r }: CreditNoteRow): CreditNote => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });
const toCreditEntry = ({ tenant: _t, client_id: _c, ...r }: CreditEntryRow): CreditEntry => ({ ...r, created_at: iso(r.created_at) });

/**
 * Moves money onto an open invoice: `paid` from a payment, `credited` from a credit note or client credit.
 * The balance shrinks by the same amount; at zero the invoice is paid, otherwise partially paid. The
 * caller holds the invoice row locked, so concurrent payments queue and none is lost.
 */
async function settle(trx: Transaction<DB>, actor: Actor, row: InvoiceRow, money: { paid?: number; credited?: number }): Promise<void> {
  const paid = money.paid ?? 0;
  const credited = money.credited ?? 0;
  if (paid + credited === 0) return;
  const balance = row.balance_cents - paid - credited;
  const now = new Date();
  await updateInvoice(trx, actor.tenant, row.invoice_id, {
    amount_paid_cents: row.amount_paid_cents + paid,
    credited_cents: row.credited_cents + credited,
    balance_cents: balance,
    status: balance === 0 ? 'paid' : 'partially_paid',
    paid_at: balance === 0 ? now : null,
    updated_at: now,
  });
  if (balance === 0 && row.status !== 'paid') await emitBillingEvent(trx, actor.tenant, 'invoice', 'paid', row.invoice_id, { invoice_number: row.invoice_number, client_id: row.client_id });
}

const creditOwner = (row: InvoiceRow) => ({ tenant: row.tenant, client_id: row.client_id, billing_profile_id: row.billing_profile_id, currency_code: row.currency_code });

/**
 * Records a payment in the caller's transaction (the REST route's, or the ledger's payment sync, which writes its
 * mapping in the same transaction so a crash can never record one ledger payment twice).
 */
export async function recordPaymentInTrx(trx: Transaction<DB>, actor: Actor, invoiceId: string, body: RecordPaymentBody) {
  const row = await visibleInvoice(trx, actor, invoiceId, true);
  assertStatus(row, OPEN_STATUSES, 'payments are accepted on finalized, sent and partially paid invoices');
  const applied = Math.min(body.amount_cents, row.balance_cents);
  const toCredit = body.amount_cents - applied;
  const paymentId = newId();
  await insertPayment(trx, {
    ...creditOwner(row),
    payment_id: paymentId,
    invoice_id: invoiceId,
    amount_cents: body.amount_cents,
    applied_cents: applied,
    to_credit_cents: toCredit,
    payment_date: body.payment_date ?? utcDate(),
    method: body.method,
    reference: body.reference?.trim() || null,
    created_by: actor.userId,
  });
  if (toCredit > 0) await insertCreditEntry(trx, { ...creditOwner(row), amount_cents: toCredit, kind: 'overpayment', invoice_id: invoiceId, payment_id: paymentId, created_by: actor.userId });
  await emitBillingEvent(trx, actor.tenant, 'invoice', 'payment_recorded', invoiceId, {
    payment_id: paymentId, invoice_number: row.invoice_number, amount_cents: body.amount_cents, applied_cents: applied, to_credit_cents: toCredit, method: body.method, currency_code: row.currency_code,
  });
  await settle(trx, actor, row, { paid: applied });
  await syncSearch(trx, actor.tenant, 'invoice', [invoiceId]);
  return { payment: toPayment((await findPayment(trx, actor.tenant, paymentId))!), invoice: toInvoice((await findInvoice(trx, actor.tenant, invoiceId))!) };
}

/**
 * Reverses a payment: what it paid goes back onto the invoice's balance (a paid invoice reopens: partially
 * paid, or sent / finalized when nothing else is on it) and the client credit an over-payment made is taken
 * back — refused (409) when that credit was already spent. The payment row stays, marked reversed.
 */
export async function reversePaymentInTrx(trx: Transaction<DB>, actor: Actor, paymentId: string, reason: string) {
  const payment = await findPayment(trx, actor.tenant, paymentId);
  if (!payment || !canSeeClient(actor, payment.client_id)) throw notFound('Payment', paymentId);
  const row = await visibleInvoice(trx, actor, payment.invoice_id, true);
  const locked = (await findPayment(trx, actor.tenant, paymentId))!;
  if (locked.reversed_at) throw conflict(`Payment ${paymentId} was already reversed`, { reversed_at: iso(locked.reversed_at) });
  assertStatus(row, [...OPEN_STATUSES, 'paid'], 'payments are reversed on finalized, sent, partially paid and paid invoices');
  if (locked.to_credit_cents > 0) {
    await lockCredit(trx, actor.tenant, row.billing_profile_id, row.currency_code);
    const available = await creditBalance(trx, actor.tenant, row.billing_profile_id, row.currency_code);
    if (available < locked.to_credit_cents) {
      throw conflict(`The over-payment's ${locked.to_credit_cents} cents of client credit were already spent (${available} left); reverse what used them first`, { available_cents: available });
    }
    await insertCreditEntry(trx, { ...creditOwner(row), amount_cents: -locked.to_credit_cents, kind: 'reversal', invoice_id: row.invoice_id, payment_id: paymentId, created_by: actor.userId });
  }
  const now = new Date();
  const paid = row.amount_paid_cents - locked.applied_cents;
  const reopened = paid + row.credited_cents > 0 ? 'partially_paid' : row.sent_at ? 'sent' : 'finalized';
  await updateInvoice(trx, actor.tenant, row.invoice_id, {
    amount_paid_cents: paid,
    balance_cents: row.balance_cents + locked.applied_cents,
    ...(locked.applied_cents > 0 ? { status: reopened, paid_at: null } : {}),
    updated_at: now,
  });
  await trx.updateTable('invoice_payments').set({ reversed_at: now, reversal_reason: reason.trim(), updated_at: now }).where('tenant', '=', actor.tenant).where('payment_id', '=', paymentId).execute();
  await emitBillingEvent(trx, actor.tenant, 'invoice', 'payment_reversed', row.invoice_id, {
    payment_id: paymentId, invoice_number: row.invoice_number, amount_cents: locked.amount_cents, applied_cents: locked.applied_cents, to_credit_cents: locked.to_credit_cents, currency_code: row.currency_code, reason: reason.trim(),
  });
  await syncSearch(trx, actor.tenant, 'invoice', [row.invoice_id]);
  return { payment: toPayment((await findPayment(trx, actor.tenant, paymentId))!), invoice: toInvoice((await findInvoice(trx, actor.tenant, row.invoice_id))!) };
}

/** Payments, credit notes and client credit: every money change is one transaction on a locked invoice. */
export function createPaymentsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  const invoiceNow = async (trx: Transaction<DB>, actor: Actor, id: string) => toInvoice((await findInvoice(trx, actor.tenant, id))!);

  return {
    /** Accepted on finalized, sent and partially paid invoices; what exceeds the balance becomes client credit. */
    record: (actor: Actor, invoiceId: string, body: RecordPaymentBody) => withTransaction(db, (trx) => recordPaymentInTrx(trx, actor, invoiceId, body)),

    /** Takes a payment back: see reversePaymentInTrx. */
    reverse: (actor: Actor, paymentId: string, body: ReversePaymentBody) => withTransaction(db, (trx) => reversePaymentInTrx(trx, actor, paymentId, body.reason)),

    async listOfInvoice(actor: Actor, invoiceId: string, query: ListInvoicePaymentsQuery) {
      await visibleInvoice(db, actor, invoiceId);
      return listPage(query, paymentList(db, actor.tenant, { invoiceId }), (rows) => rows.map(toPayment));
    },

    list(actor: Actor, query: ListPaymentsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      const list = paymentList(db, actor.tenant, { clientId: only ?? query.client_id, invoiceId: query.invoice_id, method: query.method, from: query.from, to: query.to });
      return listPage(query, list, (rows) => rows.map(toPayment));
    },

    async get(actor: Actor, id: string): Promise<Payment> {
      const row = await findPayment(db, actor.tenant, id);
      if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Payment', id);
      return toPayment(row);
    },

    /**
     * A credit note against a finalized invoice: it reduces the balance, and what exceeds the balance (an
     * amount already paid) becomes client credit — the reversing credit a paid invoice needs before it is
     * voided. An invoice is never credited beyond its total.
     */
    async issueCreditNote(actor: Actor, invoiceId: string, body: IssueCreditNoteBody) {
      return withTransaction(db, async (trx) => {
        const row = await visibleInvoice(trx, actor, invoiceId, true);
        assertStatus(row, [...OPEN_STATUSES, 'paid'], 'credit notes are issued against finalized, sent, partially paid and paid invoices');
        const creditable = row.total_cents - (await creditNotesTotal(trx, actor.tenant, invoiceId));
        if (body.amount_cents > creditable) {
          throw unprocessable(`Invoice ${invoiceLabel(row)} can be credited at most ${creditable} more cents (its total less earlier credit notes)`, { creditable_cents: creditable });
        }
        const applied = Math.min(body.amount_cents, row.balance_cents);
        const toCredit = body.amount_cents - applied;
        const creditNoteId = newId();
        const number = await takeNumber(trx, actor.tenant, 'credit_note');
        await insertCreditNote(trx, {
          ...creditOwner(row),
          credit_note_id: creditNoteId,
          credit_note_number: number,
          invoice_id: invoiceId,
          amount_cents: body.amount_cents,
          applied_cents: applied,
          to_credit_cents: toCredit,
          reason: body.reason.trim(),
          issue_date: body.issue_date ?? utcDate(),
          created_by: actor.userId,
        });
        if (toCredit > 0) await insertCreditEntry(trx, { ...creditOwner(row), amount_cents: toCredit, kind: 'credit_note', invoice_id: invoiceId, credit_note_id: creditNoteId, created_by: actor.userId });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'credited', invoiceId, {
          source: 'credit_note', credit_note_id: creditNoteId, credit_note_number: number, amount_cents: body.amount_cents, applied_cents: applied, to_credit_cents: toCredit, currency_code: row.currency_code,
        });
        await settle(trx, actor, row, { credited: applied });
        await syncSearch(trx, actor.tenant, 'invoice', [invoiceId]);
        return { credit_note: toCreditNote((await findCreditNote(trx, actor.tenant, creditNoteId))!), invoice: await invoiceNow(trx, actor, invoiceId) };
      });
    },

    listCreditNotes(actor: Actor, query: ListCreditNotesQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      return listPage(query, creditNoteList(db, actor.tenant, { clientId: only ?? query.client_id, invoiceId: query.invoice_id, from: query.from, to: query.to }), (rows) => rows.map(toCreditNote));
    },

    async getCreditNote(actor: Actor, id: string): Promise<CreditNote> {
      const row = await findCreditNote(db, actor.tenant, id);
      if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Credit note', id);
      return toCreditNote(row);
    },

    /** Spends the billing profile's client credit (same currency) on an open invoice. */
    async applyCredit(actor: Actor, invoiceId: string, body: ApplyCreditBody) {
      return withTransaction(db, async (trx) => {
        const row = await visibleInvoice(trx, actor, invoiceId, true);
        assertStatus(row, OPEN_STATUSES, 'client credit is applied to finalized, sent and partially paid invoices');
        await lockCredit(trx, actor.tenant, row.billing_profile_id, row.currency_code);
        const available = await creditBalance(trx, actor.tenant, row.billing_profile_id, row.currency_code);
        const amount = body.amount_cents ?? Math.min(available, row.balance_cents);
        if (amount === 0) throw unprocessable(`Billing profile '${row.billing_profile_name}' has no ${row.currency_code} credit to apply`, { available_cents: available });
        if (amount > available) throw unprocessable(`Only ${available} cents of ${row.currency_code} credit are available`, { available_cents: available });
        if (amount > row.balance_cents) throw unprocessable(`Invoice ${invoiceLabel(row)} has a balance of ${row.balance_cents} cents; apply at most that`, { balance_cents: row.balance_cents });
        await insertCreditEntry(trx, { ...creditOwner(row), amount_cents: -amount, kind: 'applied', invoice_id: invoiceId, created_by: actor.userId });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'credited', invoiceId, { source: 'client_credit', amount_cents: amount, applied_cents: amount, to_credit_cents: 0, currency_code: row.currency_code });
        await settle(trx, actor, row, { credited: amount });
        await syncSearch(trx, actor.tenant, 'invoice', [invoiceId]);
        return { applied_cents: amount, remaining_credit_cents: available - amount, invoice: await invoiceNow(trx, actor, invoiceId) };
      });
    },

    async clientCredit(actor: Actor, clientId: string) {
      await requireVisibleClient(db, actor, clientId);
      return creditBalances(db, actor.tenant, clientId);
    },

    async clientCreditEntries(actor: Actor, clientId: string, query: ListCreditEntriesQuery) {
      await requireVisibleClient(db, actor, clientId);
      return listPage(query, creditEntryList(db, actor.tenant, clientId), (rows) => rows.map(toCreditEntry));
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
