import { iso, utcDate } from '../../../platform/time.ts';
import { percentageOf, quantityOf } from '../tax/tax.math.ts';
import { OPEN_STATUSES, type AnnotationRow, type InvoiceItemRow, type InvoiceRow } from './invoices.repo.ts';
import type { Annotation, Invoice, InvoiceItem } from './invoices.schemas.ts';

/** Open (owed), with a balance, and past its due date (UTC days). */
export const isOverdue = (r: Pick<InvoiceRow, 'status' | 'balance_cents' | 'due_date'>, today = utcDate()): boolean =>
  (OPEN_STATUSES as readonly string[]).includes(r.status) && r.balance_cents > 0 && r.due_date < today;

/** How a message names an invoice: its number, or "draft <id>" before it has one. */
export const invoiceLabel = (r: Pick<InvoiceRow, 'invoice_number' | 'invoice_id'>): string => r.invoice_number ?? `draft ${r.invoice_id}`;

export function toInvoice(r: InvoiceRow): Invoice {
  return {
    invoice_id: r.invoice_id,
    invoice_number: r.invoice_number,
    status: r.status,
    client_id: r.client_id,
    client_name: r.client_name,
    billing_profile_id: r.billing_profile_id,
    billing_profile_name: r.billing_profile_name,
    currency_code: r.currency_code,
    issue_date: r.issue_date,
    due_date: r.due_date,
    period_start: r.period_start,
    period_end: r.period_end,
    is_generated: r.is_generated,
    po_number: r.po_number,
    subtotal_cents: r.subtotal_cents,
    tax_cents: r.tax_cents,
    total_cents: r.total_cents,
    amount_paid_cents: r.amount_paid_cents,
    credited_cents: r.credited_cents,
    balance_cents: r.balance_cents,
    is_overdue: isOverdue(r),
    finalized_at: iso(r.finalized_at),
    sent_at: iso(r.sent_at),
    paid_at: iso(r.paid_at),
    voided_at: iso(r.voided_at),
    void_reason: r.void_reason,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function toInvoiceItem(r: InvoiceItemRow): InvoiceItem {
  return {
    item_id: r.item_id,
    invoice_id: r.invoice_id,
    display_order: r.display_order,
    description: r.description,
    quantity: quantityOf(r.quantity_units),
    unit_price_cents: r.unit_price_cents,
    service_id: r.service_id,
    tax_rate_id: r.tax_rate_id,
    tax_percentage: percentageOf(r.tax_percentage_thousandths),
    total_cents: r.total_cents,
    tax_cents: r.tax_cents,
    contract_id: r.contract_id,
    contract_line_id: r.contract_line_id,
    source: r.source,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function toAnnotation(r: AnnotationRow): Annotation {
  return {
    annotation_id: r.annotation_id,
    invoice_id: r.invoice_id,
    content: r.content,
    is_internal: r.is_internal,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
