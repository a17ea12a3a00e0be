import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { Cents, CurrencyCode } from '../money.ts';

export const INVOICE_STATUSES = ['draft', 'finalized', 'sent', 'partially_paid', 'paid', 'void'] as const;
export const PAYMENT_METHODS = ['cash', 'check', 'card', 'bank_transfer', 'other'] as const;

const Amount = (what: string) => Type.Integer({ description: `${what}, in integer cents of the invoice currency` });
const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'Up to four decimals' });
const Text = (max: number, description?: string) => Type.String({ maxLength: max, ...(description ? { description } : {}) });

export const InvoiceItem = Type.Object({
  item_id: Id,
  invoice_id: Id,
  display_order: Type.Integer(),
  description: Type.String(),
  quantity: Type.Number({ description: 'Up to four decimals' }),
  unit_price_cents: Amount('The price of one unit'),
  service_id: Nullable(Id),
  tax_rate_id: Nullable(Id),
  tax_percentage: Type.Number({ description: 'The rate the line was priced at (a later change of the rate does not move it)' }),
  total_cents: Amount('quantity × unit price, rounded half to even (net of tax)'),
  tax_cents: Amount("The line's tax, rounded half to even"),
  contract_id: Nullable(Id),
  contract_line_id: Nullable(Id),
  source: Nullable(Type.Object({}, { additionalProperties: true, description: 'What generation billed (line type, period, quantities); null for an item added by hand' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type InvoiceItem = Static<typeof InvoiceItem>;

const InvoiceFields = {
  invoice_id: Id,
  invoice_number: Nullable(Type.String({ description: 'Taken from the tenant sequence at finalize; null while draft' })),
  status: Type.Enum([...INVOICE_STATUSES]),
  client_id: Id,
  client_name: Type.String(),
  billing_profile_id: Id,
  billing_profile_name: Type.String(),
  currency_code: Type.String(),
  issue_date: DateOnly,
  due_date: DateOnly,
  period_start: Nullable(DateOnly),
  period_end: Nullable(DateOnly),
  is_generated: Type.Boolean({ description: 'Generated from contracts for period_start – period_end' }),
  po_number: Nullable(Type.String()),
  subtotal_cents: Amount('Σ items total_cents'),
  tax_cents: Amount('Σ items tax_cents'),
  total_cents: Amount('subtotal_cents + tax_cents'),
  amount_paid_cents: Amount('Payments applied to this invoice'),
  credited_cents: Amount('Credit notes and client credit applied to this invoice'),
  balance_cents: Amount('total − paid − credited'),
  is_overdue: Type.Boolean({ description: 'Finalized or sent or partially paid, with a balance, past its due date (UTC)' }),
  finalized_at: Nullable(Timestamp),
  sent_at: Nullable(Timestamp),
  paid_at: Nullable(Timestamp),
  voided_at: Nullable(Timestamp),
  void_reason: Nullable(Type.String()),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const Invoice = Type.Object(InvoiceFields);
export type Invoice = Static<typeof Invoice>;
export const InvoiceWithItems = Type.Object({ ...InvoiceFields, items: Type.Array(InvoiceItem) });
export type InvoiceWithItems = Static<typeof InvoiceWithItems>;

export const ItemInput = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: "Default: the catalogue item's name" })),
    quantity: Quantity,
    unit_price_cents: Type.Optional(Cents("The price of one unit (default: the catalogue item's price in the invoice currency)")),
    service_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: 'A catalogue service or product' }))),
    tax_rate_id: Type.Optional(Nullable(Type.Unsafe<string>({ ...Id, description: "Default: the client's default rate; null = untaxed" }))),
    display_order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false },
);
export type ItemInput = Static<typeof ItemInput>;

export const UpdateItemBody = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    quantity: Type.Optional(Quantity),
    unit_price_cents: Type.Optional(Cents('The price of one unit')),
    tax_rate_id: Type.Optional(Nullable(Id)),
    display_order: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of a draft invoice item (its catalogue item is fixed)' },
);
export type UpdateItemBody = Static<typeof UpdateItemBody>;

export const CreateInvoiceBody = Type.Object(
  {
    client_id: Id,
    billing_profile_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "One of the client's billing profiles (default its default profile)" })),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: "ISO 4217 (default the client's currency)" })),
    issue_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (default today, UTC)' })),
    due_date: Type.Optional(Type.String({ format: 'date', description: "YYYY-MM-DD (default issue_date + the client's payment terms)" })),
    po_number: Type.Optional(Nullable(Text(100, "The client's purchase order number"))),
    items: Type.Optional(Type.Array(ItemInput, { maxItems: 500 })),
  },
  { additionalProperties: false },
);
export type CreateInvoiceBody = Static<typeof CreateInvoiceBody>;

export const UpdateInvoiceBody = Type.Object(
  {
    billing_profile_id: Type.Optional(Id),
    currency_code: Type.Optional(Type.Unsafe<string>({ ...CurrencyCode, description: 'Only while the draft has no items' })),
    issue_date: Type.Optional(DateOnly),
    due_date: Type.Optional(DateOnly),
    po_number: Type.Optional(Nullable(Text(100))),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of a draft (the client is fixed)' },
);
export type UpdateInvoiceBody = Static<typeof UpdateInvoiceBody>;

export const VoidInvoiceBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false });
export type VoidInvoiceBody = Static<typeof VoidInvoiceBody>;

export const INVOICE_SORT_FIELDS = ['issue_date', 'due_date', 'invoice_number', 'total_cents', 'balance_cents', 'created_at', 'updated_at'] as const;
export const ListInvoicesQuery = listQuery(INVOICE_SORT_FIELDS, {
  status: Type.Optional(Type.Enum([...INVOICE_STATUSES])),
  client_id: Type.Optional(Id),
  billing_profile_id: Type.Optional(Id),
  currency_code: Type.Optional(CurrencyCode),
  from: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or after (YYYY-MM-DD)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or before (YYYY-MM-DD)' })),
  overdue: Type.Optional(Type.Boolean({ description: 'true: only overdue invoices; false: only those that are not' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the invoice number, PO number or client name, any case' })),
});
export type ListInvoicesQuery = Static<typeof ListInvoicesQuery>;

export const Annotation = Type.Object({
  annotation_id: Id,
  invoice_id: Id,
  content: Type.String(),
  is_internal: Type.Boolean({ description: 'Internal notes are never shown to the client (portal, PDF)' }),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Annotation = Static<typeof Annotation>;
export const CreateAnnotationBody = Type.Object(
  { content: Type.String({ minLength: 1, maxLength: 10_000 }), is_internal: Type.Optional(Type.Boolean({ description: 'Default true' })) },
  { additionalProperties: false },
);
export type CreateAnnotationBody = Static<typeof CreateAnnotationBody>;
export const UpdateAnnotationBody = Type.Object(
  { content: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })), is_internal: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAnnotationBody = Static<typeof UpdateAnnotationBody>;
export const ListAnnotationsQuery = listQuery(['created_at', 'updated_at'] as const, {});
export type ListAnnotationsQuery = Static<typeof ListAnnotationsQuery>;
export const ListItemsQuery = listQuery(['display_order', 'created_at', 'updated_at'] as const, {});
export type ListItemsQuery = Static<typeof ListItemsQuery>;

export const InvoiceResponse = dataOf(InvoiceWithItems);
export const InvoiceListResponse = listOf(Invoice);
export const InvoiceItemResponse = dataOf(InvoiceItem);
export const InvoiceItemListResponse = listOf(InvoiceItem);
export const AnnotationResponse = dataOf(Annotation);
export const AnnotationListResponse = listOf(Annotation);
