import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { BillingFrequency, ItemKind, QuoteStatus } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { canSeeClient, isPortalActor, portalClientId } from '../../clients/index.ts';
import { clientOfBody } from '../billing.clients.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { catalogLineDefaults } from '../catalog/catalog.repo.ts';
import { addLineServiceIn, createContractLineIn } from '../contract-lines/lines.service.ts';
import { attachLineIn, createContractIn } from '../contracts/contracts.service.ts';
import { currencyCode, MAX_CENTS } from '../money.ts';
import { renderQuotePdf } from '../pdf/pdf.render.ts';
import { takeNumber } from '../settings/numbering.ts';
import { clientTaxOf, priceLines, type ClientTax } from '../tax/tax.lines.ts';
import { percentageOf, quantityOf, quantityUnits, totalsOf } from '../tax/tax.math.ts';
import { taxRatesById } from '../tax/tax.repo.ts';
import { valueSplit } from './quotes.math.ts';
import { pdfFileName, sellerName } from '../pdf/pdf.reply.ts';
import { toQuoteDocument } from './quotes.pdf.ts';
import { QuoteHooks } from './quotes.hooks.ts';
import {
  deleteQuote,
  deleteQuoteItem,
  findQuote,
  findQuoteItem,
  insertQuote,
  insertQuoteItems,
  itemsOfQuote,
  nextItemOrder,
  quoteList,
  updateQuote,
  updateQuoteItem,
  type QuoteItemRow,
  type QuoteRow,
} from './quotes.repo.ts';
import type {
  ConvertQuoteBody,
  CreateQuoteBody,
  ListQuotesQuery,
  Quote,
  QuoteItem,
  QuoteItemInput,
  QuoteSummary,
  RejectQuoteBody,
  UpdateQuoteBody,
  UpdateQuoteItemBody,
} from './quotes.schemas.ts';

export function toQuoteItem(r: QuoteItemRow): QuoteItem {
  return {
    item_id: r.item_id,
    quote_id: r.quote_id,
    display_order: r.display_order,
    description: r.description,
    quantity: quantityOf(r.quantity_units),
    unit_price_cents: r.unit_price_cents,
    service_id: r.service_id,
    service_name: r.service_name,
    item_kind: r.item_kind,
    is_recurring: r.is_recurring,
    billing_frequency: r.billing_frequency,
    tax_rate_id: r.tax_rate_id,
    tax_rate_name: r.tax_rate_name,
    tax_percentage: percentageOf(r.tax_percentage_thousandths),
    total_cents: r.total_cents,
    tax_cents: r.tax_cents,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function toQuoteSummary(r: QuoteRow): QuoteSummary {
  return {
    quote_id: r.quote_id,
    quote_number: r.quote_number,
    client_id: r.client_id,
    client_name: r.client_name,
    title: r.title,
    description: r.description,
    currency_code: r.currency_code,
    issue_date: r.issue_date,
    valid_until: r.valid_until,
    status: r.current_status,
    subtotal_cents: r.subtotal_cents,
    tax_cents: r.tax_cents,
    total_cents: r.total_cents,
    mrr_cents: r.mrr_cents,
    nrr_cents: r.nrr_cents,
    hardware_cents: r.hardware_cents,
    sent_at: iso(r.sent_at),
    accepted_at: iso(r.accepted_at),
    rejected_at: iso(r.rejected_at),
    rejection_reason: r.rejection_reason,
    converted_contract_id: r.converted_contract_id,
    converted_at: iso(r.converted_at),
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export const toQuote = (r: QuoteRow, items: readonly QuoteItemRow[]): Quote => ({ ...toQuoteSummary(r), items: items.map(toQuoteItem) });

/** 'YYYY-MM-DD' plus whole days. */
const addDays = (day: string, days: number): string => utcDate(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

function assertDates(issue: string, validUntil: string, field: 'issue_date' | 'valid_until'): void {
  if (validUntil < issue) {
    throw validation(`body.${field}`, field === 'valid_until' ? `must not precede issue_date (${issue})` : `must not be after valid_until (${validUntil})`);
  }
}

/** Only a draft changes: anything else is a 409 naming the current status. */
function assertDraft(q: QuoteRow, what: 'edited' | 'deleted'): void {
  if (q.current_status !== 'draft') throw conflict(`Quote ${q.quote_number} is ${q.current_status}; only a draft can be ${what}`, { status: q.current_status });
}

/** A transition from a status the quote is not in: a 409 naming the current status and the ones it needs. */
function assertStatus(q: QuoteRow, allowed: readonly QuoteStatus[], action: string): void {
  if (!allowed.includes(q.current_status)) {
    const article = /^[aeiou]/.test(allowed[0]!) ? 'an' : 'a';
    throw conflict(`Quote ${q.quote_number} is ${q.current_status}; only ${article} ${allowed.join(' or ')} quote can be ${action}`, { status: q.current_status });
  }
}

/** An item ready to price: every default applied. */
interface ItemDraft {
  description: string;
  quantity_units: number;
  unit_price_cents: number;
  service_id: string | null;
  /** undefined: the client's default rate; null: untaxed. */
  tax_rate_id?: string | null;
  item_kind: ItemKind;
  is_recurring: boolean;
  billing_frequency: BillingFrequency | null;
}

/** What an item body may say (create, add, or an update merged over the stored item). */
interface ItemFields {
  description?: string;
  quantity?: number;
  unit_price_cents?: number;
  service_id?: string | null;
  tax_rate_id?: string | null;
  item_kind?: string;
  is_recurring?: boolean;
  billing_frequency?: string;
}

/**
 * Applies the defaults an item takes from its catalogue item and the quote (name, kind, price in the
 * quote currency) over the stored item when updating; each refusal is a 400 naming `<path>.<field>`.
 */
async function itemDraft(ex: Executor, tenant: string, currency: string, body: ItemFields, path: string, current?: QuoteItemRow): Promise<ItemDraft> {
  const serviceId = body.service_id === undefined ? (current?.service_id ?? null) : body.service_id;
  const newService = serviceId !== null && serviceId !== (current?.service_id ?? null);
  const catalog = newService ? await catalogLineDefaults(ex, tenant, serviceId, currency, `${path}.service_id`) : undefined;
  if (catalog && body.item_kind !== undefined && body.item_kind !== catalog.item_kind) {
    throw validation(`${path}.item_kind`, `must match the catalogue item '${catalog.name}' (${catalog.item_kind})`);
  }

  let description: string;
  if (body.description !== undefined) description = requiredText(body.description, `${path}.description`);
  else if (catalog) description = catalog.name;
  else if (current) description = current.description;
  else throw validation(`${path}.description`, 'is required unless service_id is given');

  let price = body.unit_price_cents;
  if (price === undefined && catalog) {
    price = catalog.unit_price_cents;
    if (price === undefined) throw validation(`${path}.unit_price_cents`, `is required: '${catalog.name}' has no price in ${currency}`);
  }
  price ??= current?.unit_price_cents;
  if (price === undefined) throw validation(`${path}.unit_price_cents`, 'is required unless service_id names an item priced in the quote currency');

  const quantity = body.quantity === undefined ? current!.quantity_units : quantityUnits(body.quantity, `${path}.quantity`);
  const isRecurring = body.is_recurring ?? current?.is_recurring ?? false;
  if (!isRecurring && body.billing_frequency !== undefined) throw validation(`${path}.billing_frequency`, 'is only accepted when is_recurring is true');
  const frequency = isRecurring ? ((body.billing_frequency as BillingFrequency | undefined) ?? current?.billing_frequency ?? 'monthly') : null;

  return {
    description,
    quantity_units: quantity,
    unit_price_cents: price,
    service_id: serviceId,
    tax_rate_id: body.tax_rate_id === undefined ? current?.tax_rate_id : body.tax_rate_id,
    item_kind: (body.item_kind as ItemKind | undefined) ?? catalog?.item_kind ?? current?.item_kind ?? 'service',
    is_recurring: isRecurring,
    billing_frequency: frequency,
  };
}

/** Prices drafts with the client's tax (the one way lines are priced); a line past the largest amount is a 400. */
async function priced(ex: Executor, tenant: string, tax: ClientTax, drafts: readonly ItemDraft[], path: string, single: boolean) {
  if (single) {
    // priceLines names `<path>.<i>.tax_rate_id`; a single item's body names it at `<path>.tax_rate_id`.
    const named = drafts[0]?.tax_rate_id;
    if (typeof named === 'string' && !(await taxRatesById(ex, tenant, [named])).has(named)) throw validation(`${path}.tax_rate_id`, `no tax rate '${named}' in this tenant`);
  }
  const lines = await priceLines(ex, tenant, tax, drafts, path);
  lines.forEach((l, i) => {
    if (l.total_cents > MAX_CENTS) throw validation(single ? `${path}.quantity` : `${path}.${i}.quantity`, `quantity × unit_price_cents exceeds the largest amount (${MAX_CENTS} cents)`);
  });
  return drafts.map((d, i) => ({ ...d, ...lines[i]! }));
}

/** Totals and the value split, recomputed from the stored items in the write's transaction. */
async function recompute(trx: Transaction<DB>, tenant: string, id: string): Promise<void> {
  const items = await itemsOfQuote(trx, tenant, id);
  const totals = totalsOf(items.map((i) => ({ amount_cents: i.total_cents, tax_cents: i.tax_cents })));
  await updateQuote(trx, tenant, id, { ...totals, ...valueSplit(items), updated_at: new Date() });
}

/** Quotes: priced proposals to a client (draft → sent → accepted | rejected), converted into a draft contract. */
/** The quote, or 404: a client-portal actor sees only its own client's quotes, and never a draft. */
async function row(ex: Executor, actor: Actor, id: string, lock = false): Promise<QuoteRow> {
  const found = await findQuote(ex, actor.tenant, id, lock);
  if (!found || !canSeeClient(actor, found.client_id) || (isPortalActor(actor) && found.status === 'draft')) throw notFound('Quote', id);
  return found;
}

async function view(ex: Executor, actor: Actor, id: string): Promise<Quote> {
  const found = await row(ex, actor, id);
  return toQuote(found, await itemsOfQuote(ex, actor.tenant, id));
}

/** A quote as another area reads it inside its own transaction (404 when the actor may not see it; `lock` holds it FOR UPDATE). */
export async function quoteSummaryOf(ex: Executor, actor: Actor, id: string, lock = false): Promise<QuoteSummary> {
  return toQuoteSummary(await row(ex, actor, id, lock));
}

/**
 * An accepted quote becomes a draft contract for its client, once, inside the caller's transaction: a fixed
 * line per recurring item (its catalogue item added to the line), attached to the contract.
 */
export async function convertQuoteIn(trx: Transaction<DB>, actor: Actor, id: string, body: ConvertQuoteBody | undefined, hooks: QuoteHooks): Promise<{ quote: Quote; contract_id: string; contract_line_ids: string[] }> {
  const q = await row(trx, actor, id, true);
  if (q.converted_contract_id !== null) {
    throw conflict(`Quote ${q.quote_number} was already converted into contract ${q.converted_contract_id} (converted_contract_id)`, { converted_contract_id: q.converted_contract_id });
  }
  assertStatus(q, ['accepted'], 'converted');
  const recurring = (await itemsOfQuote(trx, actor.tenant, id)).filter((i) => i.is_recurring);
  if (recurring.length === 0) throw unprocessable(`Quote ${q.quote_number} has no recurring items to put on a contract`, { recurring_item_count: 0 });
  const contract = await createContractIn(trx, actor, { client_id: q.client_id, contract_name: q.title, currency_code: q.currency_code, start_date: body?.start_date });
  const lineIds: string[] = [];
  for (const i of recurring) {
    const line = await createContractLineIn(trx, actor, {
      contract_line_name: i.description.slice(0, 255),
      contract_line_type: 'fixed',
      billing_frequency: i.billing_frequency!,
      currency_code: q.currency_code,
      config: { base_rate_cents: i.total_cents, enable_proration: false, billing_cycle_alignment: 'start' },
    });
    if (i.service_id !== null) {
      await addLineServiceIn(trx, actor, line.contract_line_id, { service_id: i.service_id, quantity: Math.ceil(i.quantity_units / 10_000) });
    }
    await attachLineIn(trx, actor, contract.contract_id, { contract_line_id: line.contract_line_id });
    lineIds.push(line.contract_line_id);
  }
  const now = new Date();
  await updateQuote(trx, actor.tenant, id, { converted_contract_id: contract.contract_id, converted_at: now, updated_at: now });
  await emitBillingEvent(trx, actor.tenant, 'quote', 'converted', id, { quote_number: q.quote_number, client_id: q.client_id, contract_id: contract.contract_id, contract_line_ids: lineIds });
  const quote = await view(trx, actor, id);
  await hooks.run(trx, actor, quote, 'converted');
  return { quote, contract_id: contract.contract_id, contract_line_ids: lineIds };
}

export function createQuotesService(deps: { db: Kysely<DB>; hooks?: QuoteHooks }) {
  const { db } = deps;
  const hooks = deps.hooks ?? new QuoteHooks();

  async function item(ex: Executor, actor: Actor, id: string, itemId: string): Promise<QuoteItemRow> {
    const found = await findQuoteItem(ex, actor.tenant, id, itemId);
    if (!found) throw notFound('Item of this quote', itemId);
    return found;
  }

  /** A draft's item write: lock, check, write, recompute, event. */
  async function itemWrite<T>(actor: Actor, id: string, write: (trx: Transaction<DB>, q: QuoteRow) => Promise<{ itemId: string; change: string; result: T }>): Promise<T> {
    return withTransaction(db, async (trx) => {
      const q = await row(trx, actor, id, true);
      assertDraft(q, 'edited');
      const { itemId, change, result } = await write(trx, q);
      await recompute(trx, actor.tenant, id);
      await emitBillingEvent(trx, actor.tenant, 'quote', 'updated', id, { changed_fields: ['items'], item_id: itemId, item_change: change });
      return result;
    });
  }

  /** A status change: lock, check the current (computed) status, set, event. */
  async function transition(actor: Actor, id: string, allowed: readonly QuoteStatus[], action: string, apply: (trx: Transaction<DB>, q: QuoteRow) => Promise<{ change: 'sent' | 'accepted' | 'rejected'; extra?: Record<string, unknown> }>): Promise<Quote> {
    return withTransaction(db, async (trx) => {
      const q = await row(trx, actor, id, true);
      assertStatus(q, allowed, action);
      const { change, extra } = await apply(trx, q);
      await emitBillingEvent(trx, actor.tenant, 'quote', change, id, { quote_number: q.quote_number, client_id: q.client_id, ...extra });
      const quote = await view(trx, actor, id);
      await hooks.run(trx, actor, quote, change);
      return quote;
    });
  }

  return {
    list(actor: Actor, query: ListQuotesQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      if (only !== undefined && query.status === 'draft') return emptyPage(query);
      if (query.from && query.to && query.from > query.to) throw validation('querystring.from', 'must not be after to');
      const list = quoteList(db, actor.tenant, {
        clientId: query.client_id,
        onlyClientId: only,
        status: query.status,
        from: query.from,
        to: query.to,
        search: query.search?.trim() || undefined,
      });
      return listPage(query, list, (rows) => rows.map(toQuoteSummary));
    },

    get: (actor: Actor, id: string): Promise<Quote> => view(db, actor, id),

    /** A draft for a client the actor may see (400 naming client_id), numbered from the tenant's sequence, with its items priced. */
    async create(actor: Actor, body: CreateQuoteBody): Promise<Quote> {
      const title = requiredText(body.title, 'body.title');
      return withTransaction(db, async (trx) => {
        const client = await clientOfBody(trx, actor, body.client_id, 'write');
        const currency = body.currency_code ? currencyCode(body.currency_code, 'body.currency_code') : client.default_currency_code;
        const issue = body.issue_date ?? utcDate();
        const validUntil = body.valid_until ?? addDays(issue, 30);
        assertDates(issue, validUntil, 'valid_until');
        const drafts: ItemDraft[] = [];
        for (const [i, input] of (body.items ?? []).entries()) drafts.push(await itemDraft(trx, actor.tenant, currency, input, `body.items.${i}`));
        const lines = await priced(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, client.client_id), drafts, 'body.items', false);
        const id = newId();
        const number = await takeNumber(trx, actor.tenant, 'quote');
        await insertQuote(trx, {
          tenant: actor.tenant,
          quote_id: id,
          quote_number: number,
          client_id: client.client_id,
          title,
          description: optionalText(body.description) ?? null,
          currency_code: currency,
          issue_date: issue,
          valid_until: validUntil,
          status: 'draft',
          created_by: actor.userId,
        });
        await insertQuoteItems(trx, lines.map((l, i) => ({ tenant: actor.tenant, item_id: newId(), quote_id: id, display_order: i, ...l })));
        await recompute(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'quote', 'created', id, { quote_number: number, client_id: client.client_id, item_count: lines.length });
        return view(trx, actor, id);
      });
    },

    /** Partial update of a draft; the currency changes only while it has no items. */
    async update(actor: Actor, id: string, body: UpdateQuoteBody, ifMatch?: string): Promise<Quote> {
      return withTransaction(db, async (trx) => {
        const q = await row(trx, actor, id, true);
        const items = await itemsOfQuote(trx, actor.tenant, id);
        assertIfMatch(ifMatch, toQuote(q, items));
        assertDraft(q, 'edited');
        const issue = body.issue_date ?? q.issue_date;
        const validUntil = body.valid_until ?? q.valid_until;
        assertDates(issue, validUntil, body.valid_until === undefined ? 'issue_date' : 'valid_until');
        const currency = body.currency_code === undefined ? undefined : currencyCode(body.currency_code, 'body.currency_code');
        if (currency !== undefined && currency !== q.currency_code && items.length > 0) {
          throw conflict(`Quote ${q.quote_number} has ${items.length} item(s) priced in ${q.currency_code}; remove them before changing its currency`, { item_count: items.length });
        }
        await updateQuote(trx, actor.tenant, id, {
          title: body.title === undefined ? undefined : requiredText(body.title, 'body.title'),
          description: optionalText(body.description),
          currency_code: currency,
          issue_date: body.issue_date,
          valid_until: body.valid_until,
          updated_at: new Date(),
        });
        await emitBillingEvent(trx, actor.tenant, 'quote', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return view(trx, actor, id);
      });
    },

    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const q = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toQuote(q, await itemsOfQuote(trx, actor.tenant, id)));
        assertDraft(q, 'deleted');
        await deleteQuote(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'quote', 'deleted', id, { quote_number: q.quote_number, client_id: q.client_id });
      });
    },

    async listItems(actor: Actor, id: string): Promise<QuoteItem[]> {
      await row(db, actor, id);
      return (await itemsOfQuote(db, actor.tenant, id)).map(toQuoteItem);
    },

    async getItem(actor: Actor, id: string, itemId: string): Promise<QuoteItem> {
      await row(db, actor, id);
      return toQuoteItem(await item(db, actor, id, itemId));
    },

    /** Adds a priced item to a draft, after its last item. */
    addItem(actor: Actor, id: string, body: QuoteItemInput): Promise<QuoteItem> {
      return itemWrite(actor, id, async (trx, q) => {
        const draft = await itemDraft(trx, actor.tenant, q.currency_code, body, 'body');
        const [line] = await priced(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, q.client_id), [draft], 'body', true);
        const itemId = newId();
        await insertQuoteItems(trx, [{ tenant: actor.tenant, item_id: itemId, quote_id: id, display_order: await nextItemOrder(trx, actor.tenant, id), ...line! }]);
        return { itemId, change: 'added', result: toQuoteItem((await findQuoteItem(trx, actor.tenant, id, itemId))!) };
      });
    },

    /** Partial update of a draft's item, priced again (an omitted tax_rate_id keeps the item's rate). */
    updateItem(actor: Actor, id: string, itemId: string, body: UpdateQuoteItemBody, ifMatch?: string): Promise<QuoteItem> {
      return itemWrite(actor, id, async (trx, q) => {
        const current = await item(trx, actor, id, itemId);
        assertIfMatch(ifMatch, toQuoteItem(current));
        const draft = await itemDraft(trx, actor.tenant, q.currency_code, body, 'body', current);
        const [line] = await priced(trx, actor.tenant, await clientTaxOf(trx, actor.tenant, q.client_id), [draft], 'body', true);
        await updateQuoteItem(trx, actor.tenant, itemId, { ...line!, updated_at: new Date() });
        return { itemId, change: 'updated', result: toQuoteItem((await findQuoteItem(trx, actor.tenant, id, itemId))!) };
      });
    },

    removeItem(actor: Actor, id: string, itemId: string, ifMatch?: string): Promise<void> {
      return itemWrite(actor, id, async (trx) => {
        const current = await item(trx, actor, id, itemId);
        assertIfMatch(ifMatch, toQuoteItem(current));
        await deleteQuoteItem(trx, actor.tenant, itemId);
        return { itemId, change: 'removed', result: undefined };
      });
    },

    /** draft → sent; a quote without items is not sent (422). */
    send: (actor: Actor, id: string): Promise<Quote> =>
      transition(actor, id, ['draft'], 'sent', async (trx, q) => {
        const count = (await itemsOfQuote(trx, actor.tenant, id)).length;
        if (count === 0) throw unprocessable(`Quote ${q.quote_number} has no items; a quote needs at least one item to be sent`, { item_count: 0 });
        const now = new Date();
        await updateQuote(trx, actor.tenant, id, { status: 'sent', sent_at: now, updated_at: now });
        return { change: 'sent' };
      }),

    /** sent → accepted (an expired quote cannot be accepted). */
    accept: (actor: Actor, id: string): Promise<Quote> =>
      transition(actor, id, ['sent'], 'accepted', async (trx) => {
        const now = new Date();
        await updateQuote(trx, actor.tenant, id, { status: 'accepted', accepted_at: now, updated_at: now });
        return { change: 'accepted' };
      }),

    /** sent or expired → rejected, with the client's reason. */
    reject: (actor: Actor, id: string, body: RejectQuoteBody | undefined): Promise<Quote> =>
      transition(actor, id, ['sent', 'expired'], 'rejected', async (trx) => {
        const now = new Date();
        const reason = optionalText(body?.reason) ?? null;
        await updateQuote(trx, actor.tenant, id, { status: 'rejected', rejected_at: now, rejection_reason: reason, updated_at: now });
        return { change: 'rejected', extra: { has_reason: reason !== null } };
      }),

    /** An accepted quote becomes a draft contract (see convertQuoteIn). */
    convert: (actor: Actor, id: string, body: ConvertQuoteBody | undefined) => withTransaction(db, (trx) => convertQuoteIn(trx, actor, id, body, hooks)),

    /** The quote as a PDF (the tenant as seller, the client billed). */
    async pdf(actor: Actor, id: string): Promise<{ fileName: string; bytes: Buffer }> {
      const quote = await view(db, actor, id);
      const bytes = await renderQuotePdf(toQuoteDocument(quote, await sellerName(db, actor.tenant)));
      return { fileName: pdfFileName(quote.quote_number, 'quote'), bytes };
    },
  };
}

export type QuotesService = ReturnType<typeof createQuotesService>;
