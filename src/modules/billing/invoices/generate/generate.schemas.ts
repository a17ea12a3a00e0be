import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable } from '../../../../platform/http/schemas.ts';

const Money = (what: string) => Type.Integer({ description: `${what}, in integer cents of the invoice currency (1234 = 12.34)` });

export const GenerateInvoicesBody = Type.Object(
  {
    client_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "Bill only this client's billing profiles (not with billing_profile_id)" })),
    billing_profile_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: 'Bill only this billing profile (not with client_id)' })),
    period_start: Type.Unsafe<string>({ ...DateOnly, description: 'First day of the billing period (YYYY-MM-DD)' }),
    period_end: Type.Unsafe<string>({ ...DateOnly, description: 'Last day of the billing period, inclusive (YYYY-MM-DD); not before period_start, and the period is at most 366 days' }),
    issue_date: Type.Optional(Type.Unsafe<string>({ ...DateOnly, description: 'Issue date of the drafts (YYYY-MM-DD, default today UTC); due_date follows from the client payment terms' })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Compute and answer (200) without saving anything or emitting events (default false)' })),
  },
  {
    additionalProperties: false,
    description: 'Neither client_id nor billing_profile_id: the tenant-wide billing run (every client with an active contract assignment in the period)',
  },
);
export type GenerateInvoicesBody = Static<typeof GenerateInvoicesBody>;

const ItemSource = Type.Object(
  {
    line_type: Type.Enum(['fixed', 'usage', 'bucket']),
    client_contract_id: Id,
    period_start: Type.Unsafe<string>({ ...DateOnly, description: 'First day of the part of the period the assignment was active in' }),
    period_end: Type.Unsafe<string>({ ...DateOnly, description: 'Last day of that part' }),
    rate_cents: Type.Integer({ description: 'The rate applied, in integer cents (fixed: per period before proration; usage: per unit; bucket: per overage hour)' }),
    prorated: Type.Optional(Type.Boolean({ description: 'fixed: the rate was prorated to the active days' })),
    active_days: Type.Optional(Type.Integer({ description: 'fixed: days of the period the assignment was active' })),
    period_days: Type.Optional(Type.Integer({ description: 'fixed: days in the period' })),
    unit_of_measure: Type.Optional(Type.String()),
    used_quantity: Type.Optional(Type.Number({ description: 'usage: quantity recorded in the active part' })),
    minimum_quantity: Type.Optional(Type.Number({ description: 'usage: the line minimum' })),
    billed_quantity: Type.Optional(Type.Number({ description: 'usage: max(used, minimum), over all of the line items' })),
    tier: Type.Optional(Nullable(Type.Integer({ description: 'usage: the tier (1-based) this item prices; null = the line rate' }))),
    included_minutes: Type.Optional(Type.Number({ description: 'bucket: minutes included per period' })),
    rollover_minutes: Type.Optional(Type.Number({ description: "bucket: unused minutes carried from the previous period (capped)" })),
    used_minutes: Type.Optional(Type.Number({ description: 'bucket: minutes used in the active part' })),
    overage_minutes: Type.Optional(Type.Number({ description: 'bucket: minutes beyond included + rollover' })),
  },
  { additionalProperties: false, description: 'What generation billed (stored in invoice_items.source)' },
);

const GeneratedItem = Type.Object(
  {
    description: Type.String(),
    quantity: Type.Number({ description: 'Up to four decimals' }),
    unit_price_cents: Money('Price per unit'),
    total_cents: Money('Net amount: quantity × unit price, half to even'),
    tax_cents: Money('Tax on the net amount'),
    tax_rate_id: Nullable(Id),
    tax_percentage: Type.Number({ description: 'Percent the item was taxed at (up to three decimals; 0 for an exempt client)' }),
    service_id: Nullable(Id),
    contract_id: Id,
    contract_line_id: Id,
    source: ItemSource,
  },
  { additionalProperties: false },
);

export const GeneratedInvoice = Type.Object(
  {
    invoice_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'The draft invoice saved; null on a dry run' })),
    client_id: Id,
    client_name: Type.String(),
    billing_profile_id: Id,
    currency_code: Type.String({ description: 'ISO 4217 (the contracts’ currency)' }),
    period_start: DateOnly,
    period_end: DateOnly,
    issue_date: DateOnly,
    due_date: Type.Unsafe<string>({ ...DateOnly, description: "issue_date + the client's payment terms in days" }),
    subtotal_cents: Money('Sum of the items’ net amounts'),
    tax_cents: Money('Sum of the items’ tax'),
    total_cents: Money('subtotal_cents + tax_cents'),
    items: Type.Array(GeneratedItem),
  },
  { additionalProperties: false, description: 'A draft invoice generated for one billing profile and currency; money is integer cents' },
);
export type GeneratedInvoice = Static<typeof GeneratedInvoice>;

export const Skipped = Type.Object(
  {
    client_id: Id,
    billing_profile_id: Id,
    currency_code: Nullable(Type.String({ description: 'null: the profile had no active assignment in the period' })),
    reason: Type.Enum(['already_generated', 'nothing_to_bill'], {
      description: 'already_generated: a generated invoice of the profile and currency overlaps the period (tenant-wide runs); nothing_to_bill: no item came out (targeted runs only)',
    }),
    invoice_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'already_generated: the existing invoice' })),
    contract_line_id: Nullable(Type.Unsafe<string>({ ...Id, description: 'Set when one line was not billed (hourly lines are billed from time entries)' })),
    message: Type.String(),
  },
  { additionalProperties: false, description: 'A billing profile and currency (or one line of it) for which no invoice was generated' },
);
export type Skipped = Static<typeof Skipped>;

export const GenerationResult = Type.Object(
  { invoices: Type.Array(GeneratedInvoice), skipped: Type.Array(Skipped) },
  { additionalProperties: false },
);
export type GenerationResult = Static<typeof GenerationResult>;

export const GenerationResponse = Type.Object({ data: GenerationResult }, { additionalProperties: false });
