import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';

/** A client as the ledger needs it. */
export interface OurClient {
  client_id: string;
  client_name: string;
  email: string | null;
  phone_no: string | null;
  default_currency_code: string;
  is_inactive: boolean;
  updated_at: string;
}

export interface OurInvoiceLine {
  description: string;
  quantity: number;
  unit_price_cents: number;
  total_cents: number;
  service_id: string | null;
  tax_rate_id: string | null;
}

export interface OurInvoice {
  invoice_id: string;
  invoice_number: string | null;
  status: string;
  client_id: string;
  client_name: string;
  currency_code: string;
  issue_date: string;
  due_date: string;
  total_cents: number;
  balance_cents: number;
  updated_at: string;
  items: OurInvoiceLine[];
}

export interface InvoiceFilter {
  status?: string;
  client_id?: string;
  from?: string;
  to?: string;
}

/**
 * What the ledger reads and writes of our own books, through the other areas' services (wired in index.ts):
 * lookups throw the owning area's 404 for a record the actor cannot see.
 */
export interface OurBooks {
  client(actor: Actor, id: string): Promise<OurClient>;
  clients(actor: Actor, opts: { includeInactive: boolean }): Promise<OurClient[]>;
  invoice(actor: Actor, id: string): Promise<OurInvoice>;
  /** Invoices matching the filter, without items (each page of the list, followed to the end). */
  invoiceIds(actor: Actor, filter: InvoiceFilter): Promise<string[]>;
  payment(actor: Actor, id: string): Promise<{ name: string }>;
  /** A catalogue service or product. */
  catalogItem(actor: Actor, id: string): Promise<{ name: string; description: string | null }>;
  /** The region of a tax rate (null when the rate names none). */
  taxRegion(actor: Actor, taxRateId: string): Promise<string | null>;
  /** Our invoice with this number, if any (numbers are unique per tenant). */
  invoiceByNumber(actor: Actor, invoiceNumber: string): Promise<OurInvoice | undefined>;
  /** Records a payment in the caller's transaction (billing's own rules: open invoices, over-payment → credit). */
  recordPayment(trx: Transaction<DB>, actor: Actor, invoiceId: string, body: OurPaymentInput): Promise<{ payment_id: string }>;
  /** Reverses a payment in the caller's transaction (409 when already reversed or its credit was spent). */
  reversePayment(trx: Transaction<DB>, actor: Actor, paymentId: string, reason: string): Promise<void>;
}

export interface OurPaymentInput {
  amount_cents: number;
  payment_date: string;
  method: 'cash' | 'check' | 'card' | 'bank_transfer' | 'other';
  reference: string | null;
}
