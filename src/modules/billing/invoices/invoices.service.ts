import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { InvoiceItemsTable, InvoiceStatus } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { addDays, utcDate } from '../../../platform/time.ts';
import { assertNotMerged, billingProfileForContract, canSeeClient, findClientRow, isPortalActor, portalClientId } from '../../clients/index.ts';
import { clientOfBody } from '../billing.clients.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { catalogLineDefaults } from '../catalog/catalog.repo.ts';
import { currencyCode } from '../money.ts';
import { paymentTermsDays, takeNumber } from '../settings/numbering.ts';
import { clientTaxOf, priceLines, type ClientTax } from '../tax/tax.lines.ts';
import { quantityUnits } from '../tax/tax.math.ts';
import { creditAppliedTo, returnCredit, reversedByCreditNotes } from '../payments/payments.repo.ts';
import { pdfFileName, sellerName } from '../pdf/pdf.reply.ts';
import { renderInvoicePdf } from '../pdf/pdf.render.ts';
import { toInvoiceDocument } from './invoices.pdf.ts';
import { invoiceLabel, toAnnotation, toInvoice, toInvoiceItem } from './invoices.mapper.ts';
import {
  annotationIdsOf,
  annotationList,
  clientVisibleNotes,
  deleteAnnotation,
  deleteInvoice,
  deleteItem,
  findAnnotation,
  findInvoice,
  findItem,
  insertAnnotation,
  insertInvoiceItems,
  insertInvoices,
  invoiceList,
  itemList,
  itemsOfInvoices,
  nextItemOrder,
  recomputeDraftTotals,
  updateAnnotation,
  updateInvoice,
  updateItem,
  type InvoiceRow,
} from './invoices.repo.ts';
import type {
  Annotation,
  CreateAnnotationBody,
  CreateInvoiceBody,
  InvoiceItem,
  InvoiceWithItems,
  ItemInput,
  ListAnnotationsQuery,
  ListInvoicesQuery,
  ListItemsQuery,
  UpdateAnnotationBody,
  UpdateInvoiceBody,
  UpdateItemBody,
  VoidInvoiceBody,
} from './invoices.schemas.ts';

/** A 409 naming the invoice, its current status, and the rule. */
export function assertStatus(row: InvoiceRow, allowed: readonly InvoiceStatus[], rule: string): void {
  if (!allowed.includes(row.status)) throw conflict(`Invoice ${invoiceLabel(row)} is ${row.status}; ${rule}`, { status: row.status });
}

/**
 * The invoice an actor may see: in its tenant, of a client it may see, and, for a client-portal actor, past
 * draft (a draft is the MSP's work in progress). Anything else is a 404.
 */
export async function visibleInvoice(db: Executor, actor: Actor, id: string, lock = false): Promise<InvoiceRow> {
  const row = await findInvoice(db, actor.tenant, id, lock);
  if (!row || !canSeeClient(actor, row.client_id) || (isPortalActor(actor) && row.status === 'draft')) throw notFound('Invoice', id);
  return row;
}

export async function withItems(db: Executor, tenant: string, row: InvoiceRow): Promise<InvoiceWithItems> {
  const items = (await itemsOfInvoices(db, tenant, [row.invoice_id])).get(row.invoice_id) ?? [];
  return { ...toInvoice(row), items: items.map(toInvoiceItem) };
}

type NewItem = Omit<Insertable<InvoiceItemsTable>, 'invoice_id' | 'display_order'> & { display_order?: number };

/**
 * Items as a draft stores them: catalogue defaults filled (name, price in the invoice currency), the
 * quantity exact to four decimals, and each line priced and taxed by `priceLines`.
 */
async function resolveItems(db: Executor, tenant: string, tax: ClientTax, currency: string, inputs: readonly ItemInput[], path: string): Promise<NewItem[]> {
  const resolved = [];
  for (const [i, input] of inputs.entries()) {
    const at = `${path}.${i}`;
    const defaults = input.service_id ? await catalogLineDefaults(db, tenant, input.service_id, currency, `${at}.service_id`) : undefined;
    const description = (input.description ?? defaults?.name)?.trim();
    if (!description) throw validation(`${at}.description`, 'is required for an item without service_id');
    const price = input.unit_price_cents ?? defaults?.unit_price_cents;
    if (price === undefined) {
      throw validation(`${at}.unit_price_cents`, defaults ? `is required: '${defaults.name}' has no price in ${currency}` : 'is required for an item without service_id');
    }
    resolved.push({ description, price, units: quantityUnits(input.quantity, `${at}.quantity`), input });
  }
  const priced = await priceLines(db, tenant, tax, resolved.map((r) => ({ quantity_units: r.units, unit_price_cents: r.price, tax_rate_id: r.input.tax_rate_id })), path);
  return resolved.map((r, i) => ({
    tenant,
    item_id: newId(),
    description: r.description,
    quantity_units: r.units,
    unit_price_cents: r.price,
    service_id: r.input.service_id ?? null,
    ...priced[i]!,
    ...(r.input.display_order === undefined ? {} : { display_order: r.input.display_order }),
  }));
}

/** Invoices: drafts (by hand or generated), their items and notes, and the moves finalize, send and void. */
export function createInvoicesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** A draft to change, locked, its If-Match checked against what GET shows. */
  async function lockedDraft(trx: Transaction<DB>, actor: Actor, id: string, ifMatch: string | undefined, rule: string): Promise<InvoiceRow> {
    const row = await visibleInvoice(trx, actor, id, true);
    if (ifMatch !== undefined) assertIfMatch(ifMatch, await withItems(trx, actor.tenant, row));
    assertStatus(row, ['draft'], rule);
    return row;
  }

  async function touched(trx: Transaction<DB>, actor: Actor, id: string, changed: string[]): Promise<void> {
    await recomputeDraftTotals(trx, actor.tenant, id);
    await emitBillingEvent(trx, actor.tenant, 'invoice', 'updated', id, { changed_fields: changed });
    await syncSearch(trx, actor.tenant, 'invoice', [id]);
  }

  async function current(trx: Executor, actor: Actor, id: string): Promise<InvoiceWithItems> {
    return withItems(trx, actor.tenant, (await findInvoice(trx, actor.tenant, id))!);
  }

  return {
    list(actor: Actor, query: ListInvoicesQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      const list = invoiceList(db, actor.tenant, {
        status: query.status,
        clientId: query.client_id,
        portalClientId: only,
        billingProfileId: query.billing_profile_id,
        currencyCode: query.currency_code?.toUpperCase(),
        from: query.from,
        to: query.to,
        overdue: query.overdue,
        today: utcDate(),
        search: query.search?.trim() || undefined,
      });
      return listPage(query, list, (rows) => rows.map(toInvoice));
    },

    get: async (actor: Actor, id: string): Promise<InvoiceWithItems> => withItems(db, actor.tenant, await visibleInvoice(db, actor, id)),

    /**
     * A draft for one of the client's billing profiles (its default when none is named), in the client's
     * currency unless another is named; due after the client's payment terms.
     */
    async create(actor: Actor, body: CreateInvoiceBody): Promise<InvoiceWithItems> {
      return withTransaction(db, async (trx) => {
        const client = await clientOfBody(trx, actor, body.client_id, 'write');
        const profile = await billingProfileForContract(trx, actor.tenant, client.client_id, body.billing_profile_id);
        if (!profile) throw validation('body.billing_profile_id', `no billing profile '${body.billing_profile_id ?? '(default)'}' of client '${client.client_id}'`);
        const currency = body.currency_code ? currencyCode(body.currency_code, 'body.currency_code') : client.default_currency_code;
        const issue = body.issue_date ?? utcDate();
        const due = body.due_date ?? addDays(issue, await paymentTermsDays(trx, actor.tenant, client.payment_terms));
        if (due < issue) throw validation('body.due_date', 'must not be before issue_date');
        const items = await resolveItems(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, client.client_id), currency, body.items ?? [], 'body.items');
        const id = newId();
        await insertInvoices(trx, [{
          tenant: actor.tenant,
          invoice_id: id,
          client_id: client.client_id,
          billing_profile_id: profile.billing_profile_id,
          status: 'draft',
          currency_code: currency,
          issue_date: issue,
          due_date: due,
          po_number: body.po_number?.trim() || null,
          created_by: actor.userId,
        }]);
        await insertInvoiceItems(trx, items.map((item, i) => ({ ...item, invoice_id: id, display_order: item.display_order ?? i })));
        await recomputeDraftTotals(trx, actor.tenant, id);
        const created = await current(trx, actor, id);
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'created', id, { client_id: client.client_id, billing_profile_id: profile.billing_profile_id, currency_code: currency, total_cents: created.total_cents, generated: false });
        await syncSearch(trx, actor.tenant, 'invoice', [id]);
        await syncSearch(trx, actor.tenant, 'invoice_item', items.map((i) => i.item_id));
        return created;
      });
    },

    async update(actor: Actor, id: string, body: UpdateInvoiceBody, ifMatch?: string): Promise<InvoiceWithItems> {
      return withTransaction(db, async (trx) => {
        const row = await lockedDraft(trx, actor, id, ifMatch, 'only a draft can be edited');
        const set: Parameters<typeof updateInvoice>[3] = {};
        if (body.billing_profile_id !== undefined && body.billing_profile_id !== row.billing_profile_id) {
          const profile = await billingProfileForContract(trx, actor.tenant, row.client_id, body.billing_profile_id);
          if (!profile) throw validation('body.billing_profile_id', `no billing profile '${body.billing_profile_id}' of client '${row.client_id}'`);
          set.billing_profile_id = profile.billing_profile_id;
        }
        if (body.currency_code !== undefined) {
          const code = currencyCode(body.currency_code, 'body.currency_code');
          if (code !== row.currency_code && (await itemsOfInvoices(trx, actor.tenant, [id])).get(id)!.length > 0) {
            throw conflict(`Invoice ${invoiceLabel(row)} has items priced in ${row.currency_code}; remove them before changing its currency`, { currency_code: row.currency_code });
          }
          set.currency_code = code;
        }
        const issue = body.issue_date ?? row.issue_date;
        const due = body.due_date ?? row.due_date;
        if (due < issue) throw validation(body.due_date ? 'body.due_date' : 'body.issue_date', body.due_date ? 'must not be before issue_date' : `must not be after due_date (${due})`);
        if (body.issue_date) set.issue_date = body.issue_date;
        if (body.due_date) set.due_date = body.due_date;
        if (body.po_number !== undefined) set.po_number = body.po_number?.trim() || null;
        await updateInvoice(trx, actor.tenant, id, { ...set, updated_at: new Date() });
        await touched(trx, actor, id, Object.keys(body).sort());
        return current(trx, actor, id);
      });
    },

    /** Only a draft is deleted (it has no number yet, so the sequence keeps no gap); a finalized invoice is voided. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await lockedDraft(trx, actor, id, ifMatch, 'only a draft can be deleted (void a finalized invoice instead)');
        const items = (await itemsOfInvoices(trx, actor.tenant, [id])).get(id)!;
        const annotations = await annotationIdsOf(trx, actor.tenant, id);
        await deleteInvoice(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'deleted', id, { client_id: row.client_id });
        await syncSearch(trx, actor.tenant, 'invoice', [id]);
        await syncSearch(trx, actor.tenant, 'invoice_item', items.map((i) => i.item_id));
        await syncSearch(trx, actor.tenant, 'invoice_annotation', annotations);
      });
    },

    async listItems(actor: Actor, id: string, query: ListItemsQuery) {
      await visibleInvoice(db, actor, id);
      return listPage(query, itemList(db, actor.tenant, id), (rows) => rows.map(toInvoiceItem));
    },

    async addItem(actor: Actor, id: string, body: ItemInput): Promise<InvoiceItem> {
      return withTransaction(db, async (trx) => {
        const row = await lockedDraft(trx, actor, id, undefined, 'only a draft can be edited');
        const [item] = await resolveItems(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, row.client_id), row.currency_code, [body], 'body.items');
        const order = item!.display_order ?? (await nextItemOrder(trx, actor.tenant, id));
        await insertInvoiceItems(trx, [{ ...item!, invoice_id: id, display_order: order }]);
        await touched(trx, actor, id, ['items']);
        await syncSearch(trx, actor.tenant, 'invoice_item', [item!.item_id]);
        return toInvoiceItem((await findItem(trx, actor.tenant, id, item!.item_id))!);
      });
    },

    /** A changed quantity, price or rate prices the line again (at the rate's current percentage). */
    async updateItem(actor: Actor, id: string, itemId: string, body: UpdateItemBody): Promise<InvoiceItem> {
      return withTransaction(db, async (trx) => {
        const row = await lockedDraft(trx, actor, id, undefined, 'only a draft can be edited');
        const item = await findItem(trx, actor.tenant, id, itemId);
        if (!item) throw notFound('Invoice item', itemId);
        const units = body.quantity === undefined ? item.quantity_units : quantityUnits(body.quantity, 'body.quantity');
        const price = body.unit_price_cents ?? item.unit_price_cents;
        const rate = body.tax_rate_id === undefined ? item.tax_rate_id : body.tax_rate_id;
        const [priced] = await priceLines(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, row.client_id), [{ quantity_units: units, unit_price_cents: price, tax_rate_id: rate }], 'body.items');
        await updateItem(trx, actor.tenant, itemId, {
          description: body.description?.trim() || item.description,
          quantity_units: units,
          unit_price_cents: price,
          ...priced!,
          display_order: body.display_order ?? item.display_order,
          updated_at: new Date(),
        });
        await touched(trx, actor, id, ['items']);
        await syncSearch(trx, actor.tenant, 'invoice_item', [itemId]);
        return toInvoiceItem((await findItem(trx, actor.tenant, id, itemId))!);
      });
    },

    async removeItem(actor: Actor, id: string, itemId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await lockedDraft(trx, actor, id, undefined, 'only a draft can be edited');
        if (!(await findItem(trx, actor.tenant, id, itemId))) throw notFound('Invoice item', itemId);
        await deleteItem(trx, actor.tenant, itemId);
        await touched(trx, actor, id, ['items']);
        await syncSearch(trx, actor.tenant, 'invoice_item', [itemId]);
      });
    },

    /**
     * draft → finalized: the invoice takes the next number of the tenant's sequence (in this transaction, so
     * a failure gives it back) and its figures are final. An invoice of nothing is paid as it is finalized.
     */
    async finalize(actor: Actor, id: string): Promise<InvoiceWithItems> {
      return withTransaction(db, async (trx) => {
        const row = await visibleInvoice(trx, actor, id, true);
        assertStatus(row, ['draft'], 'only a draft can be finalized');
        const items = (await itemsOfInvoices(trx, actor.tenant, [id])).get(id)!;
        if (items.length === 0) throw unprocessable(`Invoice ${invoiceLabel(row)} has no items; add at least one before finalizing`);
        const client = await findClientRow(trx, actor.tenant, row.client_id, 'share');
        assertNotMerged(client!);
        const number = await takeNumber(trx, actor.tenant, 'invoice');
        const now = new Date();
        const paid = row.balance_cents === 0;
        await updateInvoice(trx, actor.tenant, id, { invoice_number: number, status: paid ? 'paid' : 'finalized', finalized_at: now, paid_at: paid ? now : null, updated_at: now });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'finalized', id, { invoice_number: number, client_id: row.client_id, currency_code: row.currency_code, total_cents: row.total_cents, due_date: row.due_date });
        if (paid) await emitBillingEvent(trx, actor.tenant, 'invoice', 'paid', id, { invoice_number: number, client_id: row.client_id });
        // Past draft, the items and client-visible notes become visible to the client's portal (and carry the number).
        await syncSearch(trx, actor.tenant, 'invoice', [id]);
        await syncSearch(trx, actor.tenant, 'invoice_item', items.map((i) => i.item_id));
        await syncSearch(trx, actor.tenant, 'invoice_annotation', await annotationIdsOf(trx, actor.tenant, id));
        return current(trx, actor, id);
      });
    },

    async send(actor: Actor, id: string): Promise<InvoiceWithItems> {
      return withTransaction(db, async (trx) => {
        const row = await visibleInvoice(trx, actor, id, true);
        assertStatus(row, ['finalized'], 'only a finalized invoice can be sent');
        await updateInvoice(trx, actor.tenant, id, { status: 'sent', sent_at: new Date(), updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'sent', id, { invoice_number: row.invoice_number, client_id: row.client_id });
        await syncSearch(trx, actor.tenant, 'invoice', [id]);
        return current(trx, actor, id);
      });
    },

    /**
     * Voids a finalized invoice; its number stays used. Payments must first have been reversed by credit
     * notes (which turned them into client credit); client credit applied to it goes back to the client.
     */
    async void(actor: Actor, id: string, body: VoidInvoiceBody): Promise<InvoiceWithItems> {
      return withTransaction(db, async (trx) => {
        const row = await visibleInvoice(trx, actor, id, true);
        assertStatus(row, ['finalized', 'sent', 'partially_paid', 'paid'], row.status === 'draft' ? 'a draft is deleted, not voided' : 'it cannot be voided again');
        if (row.amount_paid_cents > 0) {
          const reversed = await reversedByCreditNotes(trx, actor.tenant, id);
          if (reversed < row.amount_paid_cents) {
            throw conflict(
              `Invoice ${invoiceLabel(row)} is ${row.status}; its payments of ${row.amount_paid_cents} cents are reversed by credit notes for ${reversed}: issue a credit note for the remaining ${row.amount_paid_cents - reversed} cents before voiding`,
              { status: row.status, amount_paid_cents: row.amount_paid_cents, reversed_cents: reversed },
            );
          }
        }
        const applied = await creditAppliedTo(trx, actor.tenant, id);
        if (applied > 0) await returnCredit(trx, row, applied, actor.userId);
        await updateInvoice(trx, actor.tenant, id, { status: 'void', voided_at: new Date(), void_reason: body.reason.trim(), updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'voided', id, { invoice_number: row.invoice_number, client_id: row.client_id, reason: body.reason.trim(), credit_returned_cents: applied });
        await syncSearch(trx, actor.tenant, 'invoice', [id]);
        return current(trx, actor, id);
      });
    },

    /** The invoice as a PDF: client-visible notes only, whoever asks. */
    async pdf(actor: Actor, id: string): Promise<{ bytes: Buffer; fileName: string }> {
      const invoice = await withItems(db, actor.tenant, await visibleInvoice(db, actor, id));
      const doc = toInvoiceDocument(invoice, await sellerName(db, actor.tenant), await clientVisibleNotes(db, actor.tenant, id));
      return { bytes: await renderInvoicePdf(doc), fileName: pdfFileName(invoice.invoice_number, `draft-${id}`) };
    },

    async listAnnotations(actor: Actor, id: string, query: ListAnnotationsQuery) {
      await visibleInvoice(db, actor, id);
      return listPage(query, annotationList(db, actor.tenant, id, isPortalActor(actor)), (rows) => rows.map(toAnnotation));
    },

    /** Notes on any invoice, whatever its status: internal by default, or client-visible (portal and PDF). */
    async addAnnotation(actor: Actor, id: string, body: CreateAnnotationBody): Promise<Annotation> {
      return withTransaction(db, async (trx) => {
        await visibleInvoice(trx, actor, id, true);
        const annotationId = newId();
        await insertAnnotation(trx, { tenant: actor.tenant, annotation_id: annotationId, invoice_id: id, content: body.content.trim(), is_internal: body.is_internal ?? true, created_by: actor.userId });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'annotation_added', id, { annotation_id: annotationId, is_internal: body.is_internal ?? true });
        await syncSearch(trx, actor.tenant, 'invoice_annotation', [annotationId]);
        return toAnnotation((await findAnnotation(trx, actor.tenant, id, annotationId))!);
      });
    },

    async updateAnnotation(actor: Actor, id: string, annotationId: string, body: UpdateAnnotationBody): Promise<Annotation> {
      return withTransaction(db, async (trx) => {
        await visibleInvoice(trx, actor, id, true);
        if (!(await findAnnotation(trx, actor.tenant, id, annotationId))) throw notFound('Invoice annotation', annotationId);
        await updateAnnotation(trx, actor.tenant, annotationId, { content: body.content?.trim(), is_internal: body.is_internal, updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'updated', id, { changed_fields: ['annotations'], annotation_id: annotationId });
        await syncSearch(trx, actor.tenant, 'invoice_annotation', [annotationId]);
        return toAnnotation((await findAnnotation(trx, actor.tenant, id, annotationId))!);
      });
    },

    async removeAnnotation(actor: Actor, id: string, annotationId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await visibleInvoice(trx, actor, id, true);
        if (!(await findAnnotation(trx, actor.tenant, id, annotationId))) throw notFound('Invoice annotation', annotationId);
        await deleteAnnotation(trx, actor.tenant, annotationId);
        await emitBillingEvent(trx, actor.tenant, 'invoice', 'updated', id, { changed_fields: ['annotations'], annotation_id: annotationId });
        await syncSearch(trx, actor.tenant, 'invoice_annotation', [annotationId]);
      });
    },
  };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;
