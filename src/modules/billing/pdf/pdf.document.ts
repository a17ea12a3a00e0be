/**
 * What the PDF renderer draws: plain data the caller maps its invoice or quote records to. Amounts are
 * integer cents in the document's currency, already computed; the renderer only formats and lays out.
 */

/** A seller or bill-to block. */
export interface PdfParty {
  name: string;
  lines: string[]; // address / email lines, may be empty
}

export interface PdfLine {
  description: string;
  quantity: number; // up to 4 decimals, e.g. 1.5
  unit_price_cents: number; // integer cents
  total_cents: number; // integer cents, net (quantity × unit price, already rounded by the caller)
  tax_cents: number; // integer cents
  tax_label: string | null; // e.g. "NY Sales 8.875%" or null when untaxed
  tag: string | null; // short label shown after the description, e.g. "recurring" / "one-off" / "product"; null = none
}

export interface InvoiceDocument {
  number: string | null; // null while draft: rendered as "DRAFT" instead
  status: string; // draft | finalized | sent | partially_paid | paid | void ("VOID" watermark when void)
  issue_date: string; // YYYY-MM-DD
  due_date: string; // YYYY-MM-DD
  period_start: string | null; // service period, shown when both ends are set
  period_end: string | null;
  currency_code: string; // ISO 4217
  seller: PdfParty;
  bill_to: PdfParty;
  lines: PdfLine[];
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  amount_paid_cents: number;
  credited_cents: number;
  balance_cents: number;
  notes: string[]; // client-visible notes, rendered under the table
}

export interface QuoteDocument {
  number: string;
  title: string;
  status: string; // draft | sent | accepted | rejected | expired
  issue_date: string;
  valid_until: string;
  currency_code: string;
  seller: PdfParty;
  bill_to: PdfParty;
  lines: PdfLine[];
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  mrr_cents: number; // recurring (monthly) net amount
  nrr_cents: number; // one-off services net amount
  hardware_cents: number; // one-off products net amount
  notes: string[];
}
