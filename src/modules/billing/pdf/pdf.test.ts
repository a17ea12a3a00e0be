import { describe, expect, it } from 'vitest';
import { extractText, extractTextItems, getMeta } from 'unpdf';
import type { InvoiceDocument, PdfLine, QuoteDocument } from './pdf.document.ts';
import { formatMoney, formatQuantity } from './pdf.money.ts';
import { renderInvoicePdf, renderQuotePdf } from './pdf.render.ts';

const A4_WIDTH = 595.28;
const MARGIN = 50;

function line(overrides: Partial<PdfLine> = {}): PdfLine {
  return {
    description: 'Managed endpoint support',
    quantity: 1.5,
    unit_price_cents: 12_000,
    total_cents: 18_000,
    tax_cents: 1_598,
    tax_label: 'NY Sales 8.875%',
    tag: 'recurring',
    ...overrides,
  };
}

function invoice(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  return {
    number: 'INV-0001',
    status: 'sent',
    issue_date: '2026-11-01',
    due_date: '2026-12-01',
    period_start: '2026-11-01',
    period_end: '2026-11-30',
    currency_code: 'USD',
    seller: { name: 'Acme Managed Services', lines: ['1 Main Street', 'New York, NY 10001', 'billing@acme.example'] },
    bill_to: { name: 'Globex Corporation', lines: ['500 Market Street', 'ap@globex.example'] },
    lines: [line(), line({ description: 'Laptop', quantity: 2, unit_price_cents: 99_900, total_cents: 199_800, tax_cents: 17_732, tag: 'product' }), line({ description: 'Onboarding', quantity: 1, unit_price_cents: 50_000, total_cents: 50_000, tax_cents: 0, tax_label: null, tag: null })],
    subtotal_cents: 267_800,
    tax_cents: 19_330,
    total_cents: 287_130,
    amount_paid_cents: 100_000,
    credited_cents: 7_130,
    balance_cents: 180_000,
    notes: ['Thank you for your business.', 'Payment by ACH to account 123456.'],
    ...overrides,
  };
}

function quote(overrides: Partial<QuoteDocument> = {}): QuoteDocument {
  return {
    number: 'Q-0042',
    title: 'Office refresh and managed services',
    status: 'sent',
    issue_date: '2026-11-02',
    valid_until: '2026-12-02',
    currency_code: 'USD',
    seller: { name: 'Acme Managed Services', lines: ['1 Main Street'] },
    bill_to: { name: 'Globex Corporation', lines: [] },
    lines: [
      line({ description: 'Managed workstation', quantity: 10, unit_price_cents: 4_500, total_cents: 45_000, tax_cents: 0, tax_label: null, tag: 'recurring' }),
      line({ description: 'Network install', quantity: 8, unit_price_cents: 15_000, total_cents: 120_000, tax_cents: 0, tax_label: null, tag: 'one-off' }),
      line({ description: 'Firewall appliance', quantity: 1, unit_price_cents: 230_000, total_cents: 230_000, tax_cents: 20_413, tag: 'product' }),
    ],
    subtotal_cents: 395_000,
    tax_cents: 20_413,
    total_cents: 415_413,
    mrr_cents: 45_000,
    nrr_cents: 120_000,
    hardware_cents: 230_000,
    notes: ['Prices exclude travel.'],
    ...overrides,
  };
}

/** The PDF's text, all pages joined, with runs of whitespace collapsed so wrapping does not matter. */
async function textOf(pdf: Buffer): Promise<{ pages: number; text: string }> {
  const { totalPages, text } = await extractText(new Uint8Array(pdf), { mergePages: true });
  return { pages: totalPages, text: text.replace(/\s+/g, ' ') };
}

describe('formatMoney', () => {
  it('places the decimal point by the currency’s minor unit', () => {
    expect(formatMoney(123_456, 'USD')).toBe('USD 1,234.56');
    expect(formatMoney(1_235, 'JPY')).toBe('JPY 1,235');
    expect(formatMoney(1_234, 'BHD')).toBe('BHD 1.234');
    expect(formatMoney(5, 'USD')).toBe('USD 0.05');
    expect(formatMoney(7, 'BHD')).toBe('BHD 0.007');
    expect(formatMoney(123_456, 'usd')).toBe('USD 1,234.56');
  });

  it('formats zero, negatives and the largest amounts exactly', () => {
    expect(formatMoney(0, 'USD')).toBe('USD 0.00');
    expect(formatMoney(0, 'JPY')).toBe('JPY 0');
    expect(formatMoney(-500, 'USD')).toBe('-USD 5.00');
    expect(formatMoney(-1, 'USD')).toBe('-USD 0.01');
    expect(formatMoney(-1_234_567, 'JPY')).toBe('-JPY 1,234,567');
    expect(formatMoney(1_000_000_000_000, 'USD')).toBe('USD 10,000,000,000.00');
    expect(formatMoney(1_000_000_000_000, 'BHD')).toBe('BHD 1,000,000,000.000');
    expect(formatMoney(Number.MAX_SAFE_INTEGER, 'USD')).toBe('USD 90,071,992,547,409.91');
  });

  it('refuses fractional cents and unknown currencies', () => {
    expect(() => formatMoney(1.5, 'USD')).toThrow(RangeError);
    expect(() => formatMoney(100, 'ZZZ')).toThrow(/ISO 4217/);
  });
});

describe('formatQuantity', () => {
  it('shows up to four decimals with trailing zeros trimmed', () => {
    expect(formatQuantity(1.5)).toBe('1.5');
    expect(formatQuantity(2)).toBe('2');
    expect(formatQuantity(0)).toBe('0');
    expect(formatQuantity(0.0001)).toBe('0.0001');
    expect(formatQuantity(1.2345)).toBe('1.2345');
    expect(formatQuantity(10.25)).toBe('10.25');
    expect(formatQuantity(100)).toBe('100');
    expect(formatQuantity(-3.5)).toBe('-3.5');
    expect(formatQuantity(0.1 + 0.2)).toBe('0.3'); // float noise below the fourth decimal disappears
  });
});

describe('renderInvoicePdf', () => {
  it('produces a PDF whose text carries the number, lines, total and balance', async () => {
    const pdf = await renderInvoicePdf(invoice());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { pages, text } = await textOf(pdf);
    expect(pages).toBe(1);
    expect(text).toContain('INVOICE');
    expect(text).toContain('INV-0001');
    expect(text).toContain('Globex Corporation');
    expect(text).toContain('Acme Managed Services');
    expect(text).toContain('2026-11-01 – 2026-11-30');
    expect(text).toContain('Managed endpoint support');
    expect(text).toContain('recurring');
    expect(text).toContain('NY Sales 8.875%');
    expect(text).toContain('1.5');
    expect(text).toContain('USD 2,871.30'); // total
    expect(text).toContain('USD 1,800.00'); // balance
    expect(text).toContain('Balance due');
    expect(text).toContain('Payment by ACH to account 123456.');
    expect(text).not.toContain('DRAFT');
    expect(text).not.toContain('VOID');
  });

  it('sets the title and author, and renders the same bytes for the same invoice', async () => {
    const first = await renderInvoicePdf(invoice());
    const { info } = await getMeta(new Uint8Array(first));
    expect(info).toMatchObject({ Title: 'Invoice INV-0001', Author: 'Acme Managed Services' });
    expect((await renderInvoicePdf(invoice())).equals(first)).toBe(true);
  });

  it('shows DRAFT in place of the number while the invoice is a draft', async () => {
    const { text } = await textOf(await renderInvoicePdf(invoice({ number: null, status: 'draft' })));
    expect(text).toContain('DRAFT');
    expect(text).not.toContain('INV-0001');
  });

  it('marks a void invoice VOID', async () => {
    const { text } = await textOf(await renderInvoicePdf(invoice({ status: 'void' })));
    expect(text).toContain('VOID');
    expect(text).toContain('INV-0001');
  });

  it('formats amounts in the invoice currency', async () => {
    const yen = invoice({ currency_code: 'JPY', lines: [line({ unit_price_cents: 1_235, total_cents: 1_235, tax_cents: 0, tax_label: null })], subtotal_cents: 1_235, tax_cents: 0, total_cents: 1_235, amount_paid_cents: 0, credited_cents: 0, balance_cents: 1_235 });
    const { text } = await textOf(await renderInvoicePdf(yen));
    expect(text).toContain('JPY 1,235');
    expect(text).not.toContain('JPY 12.35');
  });

  it('prints Western European text as is and characters the built-in font lacks as "?"', async () => {
    const lines = [line({ description: 'Café – “Crème” € 日本 ✓', tag: null })];
    const { text } = await textOf(await renderInvoicePdf(invoice({ lines, bill_to: { name: 'Zoë Müller', lines: [] } })));
    expect(text).toContain('Café – “Crème” € ?? ?');
    expect(text).toContain('Zoë Müller');
  });

  it('continues a 200-line table over several pages, every line present', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => line({ description: `Service item ${String(i + 1).padStart(3, '0')}` }));
    const { pages, text } = await textOf(await renderInvoicePdf(invoice({ lines })));
    expect(pages).toBeGreaterThan(1);
    for (let i = 1; i <= 200; i++) expect(text).toContain(`Service item ${String(i).padStart(3, '0')}`);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    expect(text).toContain('USD 1,800.00');
  });

  it('wraps long descriptions and huge amounts inside the page instead of overflowing', async () => {
    const long = 'Quarterly on-site infrastructure review including firewall rule audit, backup restore test and licence reconciliation '.repeat(6);
    const unbroken = 'X'.repeat(300);
    const lines = [line({ description: long }), line({ description: unbroken, tag: 'one-off', unit_price_cents: 1_000_000_000_000, total_cents: 1_000_000_000_000, tax_cents: 88_750_000_000 })];
    const pdf = await renderInvoicePdf(invoice({ lines, total_cents: 1_000_000_000_000, balance_cents: 1_000_000_000_000, seller: { name: 'Acme', lines: [] } }));
    const { items } = await extractTextItems(new Uint8Array(pdf));
    const all = items.flat();
    expect(all.some((item) => item.str.includes('licence reconciliation'))).toBe(true);
    for (const item of all) {
      expect(item.x).toBeGreaterThanOrEqual(MARGIN - 0.5);
      expect(item.x + item.width).toBeLessThanOrEqual(A4_WIDTH - MARGIN + 0.5);
    }
    const { text } = await textOf(pdf);
    expect(text).toContain('USD 10,000,000,000.00');
  });
});

describe('renderQuotePdf', () => {
  it('carries the number, title, total and the recurring / one-off / hardware split', async () => {
    const pdf = await renderQuotePdf(quote());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const { text } = await textOf(pdf);
    expect(text).toContain('QUOTE');
    expect(text).toContain('Q-0042');
    expect(text).toContain('Office refresh and managed services');
    expect(text).toContain('Valid until');
    expect(text).toContain('USD 4,154.13'); // total
    expect(text).toContain('Monthly recurring');
    expect(text).toContain('USD 450.00'); // MRR
    expect(text).toContain('One-off services');
    expect(text).toContain('USD 1,200.00'); // NRR
    expect(text).toContain('Hardware');
    expect(text).toContain('USD 2,300.00'); // hardware
    expect(text).toContain('Prices exclude travel.');
    const { info } = await getMeta(new Uint8Array(pdf));
    expect(info).toMatchObject({ Title: 'Quote Q-0042', Author: 'Acme Managed Services' });
  });

  it('renders a quote without lines or notes', async () => {
    const { text } = await textOf(await renderQuotePdf(quote({ lines: [], notes: [], subtotal_cents: 0, tax_cents: 0, total_cents: 0, mrr_cents: 0, nrr_cents: 0, hardware_cents: 0 })));
    expect(text).toContain('No items.');
    expect(text).toContain('USD 0.00');
  });
});
