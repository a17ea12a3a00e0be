import { Type, type Static } from 'typebox';
import { DateOnly, Id, Name, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { BillingFrequency } from '../billing.schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';

export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'rejected', 'expired'] as const;
const Status = Type.Enum([...QUOTE_STATUSES], { description: 'draft → sent → accepted | rejected; expired: sent and past valid_until (UTC), computed on every read' });
const ItemKind = Type.Enum(['service', 'product'], { description: 'A service or a product (hardware)' });
const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: 'Up to four decimals' });
const Description = Type.String({ minLength: 1, maxLength: 2000 });

export const QuoteItem = Type.Object({
  item_id: Id,
  quote_id: Id,
  display_order: Type.Integer(),
  description: Type.String(),
  quantity: Type.Number(),
  unit_price_cents: Cents('The price of one unit'),
  service_id: Nullable(Id),
  service_name: Nullable(Type.String({ description: 'The catalogue item, when the item names one' })),
  item_kind: ItemKind,
  is_recurring: Type.Boolean(),
  billing_frequency: Nullable(BillingFrequency),
  tax_rate_id: Nullable(Id),
  tax_rate_name: Nullable(Type.String()),
  tax_percentage: Type.Number({ description: 'The percentage the item was priced at (0 when untaxed or the client is exempt)' }),
  total_cents: Type.Integer({ description: 'Net: quantity × unit price, half-even to the cent' }),
  tax_cents: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type QuoteItem = Static<typeof QuoteItem>;

const quoteFields = {
  quote_id: Id,
  quote_number: Type.String(),
  client_id: Id,
  client_name: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  currency_code: Type.String({ description: 'ISO 4217; every amount of the quote is in this currency' }),
  issue_date: DateOnly,
  valid_until: DateOnly,
  status: Status,
  subtotal_cents: Type.Integer({ description: 'Sum of the items’ net amounts' }),
  tax_cents: Type.Integer({ description: 'Sum of the items’ tax' }),
  total_cents: Type.Integer({ description: 'subtotal_cents + tax_cents' }),
  mrr_cents: Type.Integer({ description: 'Recurring items’ net amounts normalised to a month (each rounded half-even)' }),
  nrr_cents: Type.Integer({ description: 'One-off services’ net amounts' }),
  hardware_cents: Type.Integer({ description: 'One-off products’ net amounts' }),
  sent_at: Nullable(Timestamp),
  accepted_at: Nullable(Timestamp),
  rejected_at: Nullable(Timestamp),
  rejection_reason: Nullable(Type.String()),
  converted_contract_id: Nullable(Id),
  converted_at: Nullable(Timestamp),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A quote as lists show it (without its items). */
export const QuoteSummary = Type.Object(quoteFields);
export type QuoteSummary = Static<typeof QuoteSummary>;

export const Quote = Type.Object({ ...quoteFields, items: Type.Array(QuoteItem) });
export type Quote = Static<typeof Quote>;

export const QuoteItemInput = Type.Object(
  {
    description: Type.Optional(Type.Unsafe<string>({ ...Description, description: "Required unless service_id is given (default: the catalogue item's name)" })),
    quantity: Quantity,
    unit_price_cents: Type.Optional(Cents("The price of one unit (default: the catalogue item's price in the quote currency)")),
    service_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'A catalogue service or product of the tenant' })),
    tax_rate_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: "Omitted: the client's default rate; null: untaxed" }))),
    item_kind: Type.Optional(Type.Unsafe<string>({ ...ItemKind, description: "Default: the catalogue item's kind, else service" })),
    is_recurring: Type.Optional(Type.Boolean({ description: 'Default false' })),
    billing_frequency: Type.Optional(Type.Unsafe<string>({ ...BillingFrequency, description: 'Only for a recurring item (default monthly)' })),
  },
  { additionalProperties: false },
);
export type QuoteItemInput = Static<typeof QuoteItemInput>;

export const UpdateQuoteItemBody = Type.Object(
  {
    description: Type.Optional(Description),
    quantity: Type.Optional(Quantity),
    unit_price_cents: Type.Optional(Cents('The price of one unit')),
    service_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: "A new catalogue item (its name, kind and price become the defaults); null unlinks it" }))),
    tax_rate_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'null: untaxed' }))),
    item_kind: Type.Optional(ItemKind),
    is_recurring: Type.Optional(Type.Boolean()),
    billing_frequency: Type.Optional(BillingFrequency),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of a draft quote’s item; it is priced again' },
);
export type UpdateQuoteItemBody = Static<typeof UpdateQuoteItemBody>;

export const CreateQuoteBody = Type.Object(
  {
    client_id: Id,
    title: Name,
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: "ISO 4217 (default the client's currency)" })),
    issue_date: Type.Optional(Type.Unsafe<string>({ ...DateOnly, description: 'YYYY-MM-DD (default today, UTC)' })),
    valid_until: Type.Optional(Type.Unsafe<string>({ ...DateOnly, description: 'YYYY-MM-DD, on or after issue_date (default issue_date + 30 days)' })),
    items: Type.Optional(Type.Array(QuoteItemInput, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
export type CreateQuoteBody = Static<typeof CreateQuoteBody>;

export const UpdateQuoteBody = Type.Object(
  {
    title: Type.Optional(Name),
    description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: 'Only while the quote has no items' })),
    issue_date: Type.Optional(DateOnly),
    valid_until: Type.Optional(DateOnly),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of a draft (the client cannot change)' },
);
export type UpdateQuoteBody = Static<typeof UpdateQuoteBody>;

export const RejectQuoteBody = Type.Object(
  { reason: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Why the client declined' }))) },
  { additionalProperties: false },
);
export type RejectQuoteBody = Static<typeof RejectQuoteBody>;

export const ConvertQuoteBody = Type.Object(
  { start_date: Type.Optional(Type.Unsafe<string>({ ...DateOnly, description: "The contract's start date (default today, UTC)" })) },
  { additionalProperties: false },
);
export type ConvertQuoteBody = Static<typeof ConvertQuoteBody>;

export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body' });

export const QUOTE_SORT_FIELDS = ['issue_date', 'valid_until', 'total_cents', 'quote_number', 'created_at', 'updated_at'] as const;
export const ListQuotesQuery = listQuery(QUOTE_SORT_FIELDS, {
  client_id: Type.Optional(Id),
  status: Type.Optional(Status),
  from: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or after (YYYY-MM-DD)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or before (YYYY-MM-DD)' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the title or the number, any case' })),
});
export type ListQuotesQuery = Static<typeof ListQuotesQuery>;

export const QuoteItemParams = Type.Object({ id: Id, itemId: Id }, { additionalProperties: false });

export const QuoteResponse = dataOf(Quote);
export const QuoteListResponse = listOf(QuoteSummary);
export const QuoteItemResponse = dataOf(QuoteItem);
export const QuoteItemListResponse = Type.Object({ data: Type.Array(QuoteItem) });
export const ConvertQuoteResponse = dataOf(
  Type.Object({
    quote: Quote,
    contract_id: Id,
    contract_line_ids: Type.Array(Id, { description: 'The fixed lines made from the recurring items, in item order' }),
  }),
);
