import type { PdfLine, QuoteDocument } from '../pdf/pdf.document.ts';
import type { Quote, QuoteItem } from './quotes.schemas.ts';

/** The short label after an item's description: how it is billed. */
export function itemTag(item: Pick<QuoteItem, 'is_recurring' | 'billing_frequency' | 'item_kind'>): string {
  if (item.is_recurring) return `recurring (${item.billing_frequency ?? 'monthly'})`;
  return item.item_kind === 'product' ? 'product' : 'one-off';
}

function pdfLine(item: QuoteItem): PdfLine {
  return {
    description: item.description,
    quantity: item.quantity,
    unit_price_cents: item.unit_price_cents,
    total_cents: item.total_cents,
    tax_cents: item.tax_cents,
    tax_label: item.tax_rate_id === null ? null : `${item.tax_rate_name ?? 'Tax'} ${item.tax_percentage}%`,
    tag: itemTag(item),
  };
}

/** A quote as the PDF renderer draws it: the tenant sells, the client is billed, the amounts as stored. */
export function toQuoteDocument(quote: Quote, sellerName: string): QuoteDocument {
  return {
    number: quote.quote_number,
    title: quote.title,
    status: quote.status,
    issue_date: quote.issue_date,
    valid_until: quote.valid_until,
    currency_code: quote.currency_code,
    seller: { name: sellerName, lines: [] },
    bill_to: { name: quote.client_name, lines: [] },
    lines: quote.items.map(pdfLine),
    subtotal_cents: quote.subtotal_cents,
    tax_cents: quote.tax_cents,
    total_cents: quote.total_cents,
    mrr_cents: quote.mrr_cents,
    nrr_cents: quote.nrr_cents,
    hardware_cents: quote.hardware_cents,
    notes: quote.description ? [quote.description] : [],
  };
}
