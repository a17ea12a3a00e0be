import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { Invoice, PAYMENT_METHODS } from '../invoices/invoices.schemas.ts';
import { Cents } from '../money.ts';

const Amount = (what: string) => Type.Integer({ description: `${what}, in integer cents of the invoice currency` });
const Positive = (what: string) => Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: `${what}, in integer cents of the invoice currency` });

export const Payment = Type.Object({
  payment_id: Id,
  invoice_id: Id,
  invoice_number: Nullable(Type.String()),
  client_id: Id,
  billing_profile_id: Id,
  currency_code: Type.String(),
  amount_cents: Amount('What the client paid'),
  applied_cents: Amount('The part that reduced the invoice balance'),
  to_credit_cents: Amount('The over-payment, added to the client credit of the billing profile'),
  payment_date: DateOnly,
  method: Type.Enum([...PAYMENT_METHODS]),
  reference: Nullable(Type.String()),
  reversed_at: Nullable(Type.Unsafe<string>({ ...Timestamp, description: 'When the payment was reversed (its money left the invoice); null while it stands' })),
  reversal_reason: Nullable(Type.String()),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Payment = Static<typeof Payment>;

export const ReversePaymentBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Why (a bounced cheque, a charge-back, deleted in the accounting ledger)' }) },
  { additionalProperties: false },
);
export type ReversePaymentBody = Static<typeof ReversePaymentBody>;

export const RecordPaymentBody = Type.Object(
  {
    amount_cents: Positive('What the client paid (more than the balance becomes client credit)'),
    payment_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (default today, UTC)' })),
    method: Type.Enum([...PAYMENT_METHODS]),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Cheque number, transaction id, …' }))),
  },
  { additionalProperties: false },
);
export type RecordPaymentBody = Static<typeof RecordPaymentBody>;

export const CreditNote = Type.Object({
  credit_note_id: Id,
  credit_note_number: Type.String(),
  invoice_id: Id,
  invoice_number: Nullable(Type.String()),
  client_id: Id,
  billing_profile_id: Id,
  currency_code: Type.String(),
  amount_cents: Amount('The amount credited'),
  applied_cents: Amount('The part that reduced the invoice balance'),
  to_credit_cents: Amount('The part beyond the balance (already paid), added to client credit'),
  reason: Type.String(),
  issue_date: DateOnly,
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type CreditNote = Static<typeof CreditNote>;

export const IssueCreditNoteBody = Type.Object(
  {
    amount_cents: Positive('The amount to credit (at most the invoice total less earlier credit notes)'),
    reason: Type.String({ minLength: 1, maxLength: 2000 }),
    issue_date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD (default today, UTC)' })),
  },
  { additionalProperties: false },
);
export type IssueCreditNoteBody = Static<typeof IssueCreditNoteBody>;

export const ApplyCreditBody = Type.Object(
  { amount_cents: Type.Optional(Cents('How much client credit to apply (default: as much as the credit and the balance allow)')) },
  { additionalProperties: false },
);
export type ApplyCreditBody = Static<typeof ApplyCreditBody>;

export const CreditBalance = Type.Object({
  billing_profile_id: Id,
  billing_profile_name: Type.String(),
  currency_code: Type.String(),
  balance_cents: Amount('Available client credit'),
});
export const CreditEntry = Type.Object({
  entry_id: Id,
  billing_profile_id: Id,
  currency_code: Type.String(),
  amount_cents: Amount('Signed: positive adds credit, negative spends it'),
  kind: Type.Enum(['overpayment', 'credit_note', 'applied', 'reversal'], { description: 'reversal: the credit of a reversed over-payment taken back' }),
  invoice_id: Nullable(Id),
  payment_id: Nullable(Id),
  credit_note_id: Nullable(Id),
  created_by: Nullable(Id),
  created_at: Timestamp,
});
export type CreditEntry = Static<typeof CreditEntry>;

export const ListPaymentsQuery = listQuery(['payment_date', 'amount_cents', 'created_at', 'updated_at'] as const, {
  client_id: Type.Optional(Id),
  invoice_id: Type.Optional(Id),
  method: Type.Optional(Type.Enum([...PAYMENT_METHODS])),
  from: Type.Optional(Type.String({ format: 'date', description: 'payment_date on or after' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'payment_date on or before' })),
});
export type ListPaymentsQuery = Static<typeof ListPaymentsQuery>;
export const ListInvoicePaymentsQuery = listQuery(['payment_date', 'amount_cents', 'created_at', 'updated_at'] as const, {});
export type ListInvoicePaymentsQuery = Static<typeof ListInvoicePaymentsQuery>;
export const ListCreditNotesQuery = listQuery(['issue_date', 'credit_note_number', 'amount_cents', 'created_at', 'updated_at'] as const, {
  client_id: Type.Optional(Id),
  invoice_id: Type.Optional(Id),
  from: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or after' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'issue_date on or before' })),
});
export type ListCreditNotesQuery = Static<typeof ListCreditNotesQuery>;
export const ListCreditEntriesQuery = listQuery(['created_at'] as const, {});
export type ListCreditEntriesQuery = Static<typeof ListCreditEntriesQuery>;

export const PaymentResultResponse = dataOf(Type.Object({ payment: Payment, invoice: Invoice }));
export const CreditNoteResultResponse = dataOf(Type.Object({ credit_note: CreditNote, invoice: Invoice }));
export const ApplyCreditResponse = dataOf(Type.Object({ applied_cents: Amount('Client credit applied'), remaining_credit_cents: Amount('Client credit left in the profile and currency'), invoice: Invoice }));
export const PaymentResponse = dataOf(Payment);
export const PaymentListResponse = listOf(Payment);
export const CreditNoteResponse = dataOf(CreditNote);
export const CreditNoteListResponse = listOf(CreditNote);
export const CreditBalancesResponse = dataOf(Type.Array(CreditBalance));
export const CreditEntryListResponse = listOf(CreditEntry);
