import type { InvoiceDocument } from '../pdf/pdf.document.ts';
import type { InvoiceWithItems } from './invoices.schemas.ts';

/** An invoice as the PDF renderer draws it: the tenant bills the client's billing profile; only client-visible notes. */
export function toInvoiceDocument(invoice: InvoiceWithItems, seller: string, notes: string[]): InvoiceDocument {
  return {
    number: invoice.invoice_number,
    status: invoice.status,
    issue_date: invoice.issue_date,
    due_date: invoice.due_date,
    period_start: invoice.period_start,
    period_end: invoice.period_end,
    currency_code: invoice.currency_code,
    seller: { name: seller, lines: [] },
    bill_to: { name: invoice.client_name, lines: [invoice.billing_profile_name, ...(invoice.po_number ? [`PO ${invoice.po_number}`] : [])] },
    lines: invoice.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      unit_price_cents: item.unit_price_cents,
      total_cents: item.total_cents,
      tax_cents: item.tax_cents,
      tax_label: item.tax_rate_id === null ? null : `${item.tax_percentage}%`,
      tag: null,
    })),
    subtotal_cents: invoice.subtotal_cents,
    tax_cents: invoice.tax_cents,
    total_cents: invoice.total_cents,
    amount_paid_cents: invoice.amount_paid_cents,
    credited_cents: invoice.credited_cents,
    balance_cents: invoice.balance_cents,
    notes,
  };
}
