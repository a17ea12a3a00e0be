import type { InvoiceDocument, PdfLine, PdfParty, QuoteDocument } from './pdf.document.ts';
import { formatMoney, formatQuantity } from './pdf.money.ts';

/**
 * Invoice and quote PDFs. Both documents share every drawing helper below: a heading (seller, title,
 * reference, bill-to and dates), the item table, a totals block, notes, and per-page footers and
 * watermarks. Only pdfkit's built-in Helvetica is used: no font files to load, so rendering is fast,
 * works offline and leaves the text extractable.
 */

type Pdf = PDFKit.PDFDocument;

const MARGIN = 50;
const BOTTOM_MARGIN = 64; // leaves room for the footer drawn below the content area
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const INK = '#1f2328';
const MUTED = '#6a737d';
const RULE = '#d0d7de';
const STRIPE = '#f6f8fa';
const ALERT = '#c62828';

const BODY_SIZE = 9;
const SMALL_SIZE = 7.5;
const CELL_PAD_X = 4;
const CELL_PAD_Y = 4;
/** A cell's text is cut (with an ellipsis) past this height, so any row fits on a fresh page. */
const MAX_CELL_TEXT_HEIGHT = 480;
/** Tags and tax labels are short: more than two lines of one is cut rather than stretching the row. */
const MAX_CELL_NOTE_LINES = 2;

// ---------------------------------------------------------------------------------------------
// Document lifecycle
// ---------------------------------------------------------------------------------------------

/** Parses YYYY-MM-DD as UTC midnight; the creation date then follows the document, not the clock. */
function documentDate(isoDate: string): Date | undefined {
  const date = new Date(`${isoDate}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** pdfkit is loaded on first use: ~25 MB resident that a process rendering no PDF never needs. */
async function openDocument(title: string, author: string, issueDate: string): Promise<Pdf> {
  const { default: PDFDocument } = await import('pdfkit');
  const creationDate = documentDate(issueDate);
  return new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: BOTTOM_MARGIN },
    // Buffered pages let the footer say "Page 1 of N" once N is known.
    bufferPages: true,
    info: { Title: title, Author: author, ...(creationDate ? { CreationDate: creationDate } : {}) },
  });
}

/** Collects the bytes pdfkit streams out; must be attached before `end()`. */
function collectBytes(doc: Pdf): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

async function finish(doc: Pdf, footer: string, watermark: string | null): Promise<Buffer> {
  const bytes = collectBytes(doc);
  const range = doc.bufferedPageRange();
  for (let index = 0; index < range.count; index++) {
    doc.switchToPage(range.start + index);
    if (watermark) drawWatermark(doc, watermark);
    drawFooter(doc, footer, `Page ${index + 1} of ${range.count}`);
  }
  doc.end();
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Page geometry
// ---------------------------------------------------------------------------------------------

interface Frame {
  left: number;
  right: number;
  width: number;
  top: number;
  bottom: number;
}

function frame(doc: Pdf): Frame {
  const { width, height, margins } = doc.page;
  return { left: margins.left, right: width - margins.right, width: width - margins.left - margins.right, top: margins.top, bottom: height - margins.bottom };
}

/**
 * The built-in fonts only encode Windows-1252 (WinAnsi): anything else would come out as unrelated
 * glyphs, so it is shown as "?" instead. NFC first, so a decomposed "é" still prints as "é".
 */
const OUTSIDE_WIN_ANSI = /[^\t\n\r\x20-\x7e\xa0-\xff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/gu;

function printable(text: string): string {
  return text.normalize('NFC').replace(OUTSIDE_WIN_ANSI, '?');
}

/** Starts a new page when `needed` points do not fit below `y`; returns where to draw. */
function ensureSpace(doc: Pdf, y: number, needed: number): number {
  if (y + needed <= frame(doc).bottom) return y;
  doc.addPage();
  return frame(doc).top;
}

function rule(doc: Pdf, y: number, from: number, to: number, color = RULE): void {
  doc.save().moveTo(from, y).lineTo(to, y).lineWidth(0.75).strokeColor(color).stroke().restore();
}

// ---------------------------------------------------------------------------------------------
// Heading: seller, document kind and reference, bill-to, dates
// ---------------------------------------------------------------------------------------------

interface Heading {
  kind: string; // INVOICE | QUOTE
  reference: string; // the number, or DRAFT
  alert: boolean; // draws the reference in red (a draft has no number yet)
  meta: Array<[label: string, value: string]>;
  seller: PdfParty;
  billTo: PdfParty;
  title: string | null;
}

/** A party's name in bold with its address lines under it; returns the y below the block. */
function drawParty(doc: Pdf, party: PdfParty, x: number, y: number, width: number, nameSize: number): number {
  doc.font(BOLD).fontSize(nameSize).fillColor(INK).text(printable(party.name), x, y, { width });
  doc.font(REGULAR).fontSize(BODY_SIZE).fillColor(MUTED);
  for (const line of party.lines) doc.text(printable(line), x, doc.y, { width });
  return doc.y;
}

/** Label/value pairs, labels left and values right-aligned; long values wrap within their column. */
function drawMeta(doc: Pdf, meta: Heading['meta'], x: number, y: number, width: number): number {
  const labelWidth = width * 0.45;
  for (const [label, value] of meta) {
    doc.font(REGULAR).fontSize(BODY_SIZE).fillColor(MUTED).text(label, x, y, { width: labelWidth });
    const labelBottom = doc.y;
    doc.font(BOLD).fillColor(INK).text(printable(value), x + labelWidth, y, { width: width - labelWidth, align: 'right' });
    y = Math.max(labelBottom, doc.y) + 3;
  }
  return y;
}

function drawHeading(doc: Pdf, heading: Heading): number {
  const { left, right, width, top } = frame(doc);
  const leftWidth = width * 0.55;
  const rightX = left + leftWidth + 16;
  const rightWidth = right - rightX;

  const sellerBottom = drawParty(doc, heading.seller, left, top, leftWidth, 14);
  doc.font(BOLD).fontSize(24).fillColor(INK).text(heading.kind, rightX, top, { width: rightWidth, align: 'right' });
  doc.fontSize(13).fillColor(heading.alert ? ALERT : INK).text(printable(heading.reference), rightX, doc.y + 2, { width: rightWidth, align: 'right' });
  let y = Math.max(sellerBottom, doc.y) + 16;
  rule(doc, y, left, right);
  y += 14;

  doc.font(BOLD).fontSize(SMALL_SIZE).fillColor(MUTED).text('BILL TO', left, y, { width: leftWidth });
  const billToBottom = drawParty(doc, heading.billTo, left, doc.y + 2, leftWidth, 11);
  const metaBottom = drawMeta(doc, heading.meta, rightX, y, rightWidth);
  y = Math.max(billToBottom, metaBottom) + 20;

  if (heading.title) {
    doc.font(BOLD).fontSize(12).fillColor(INK).text(printable(heading.title), left, y, { width });
    y = doc.y + 12;
  }
  return y;
}

/** "partially_paid" → "Partially paid". */
function statusLabel(status: string): string {
  const words = status.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// ---------------------------------------------------------------------------------------------
// Item table
// ---------------------------------------------------------------------------------------------

interface Column {
  title: string;
  x: number;
  width: number;
  align: 'left' | 'right';
}

/** A cell's main text and an optional small muted line under it (a line's tag, its tax label). */
interface Cell {
  text: string;
  note: string | null;
}

/** Fixed widths for the figures; the description takes whatever remains of the page width. */
function tableColumns(doc: Pdf): Column[] {
  const { left, width } = frame(doc);
  const figures: Array<Omit<Column, 'x'>> = [
    { title: 'Qty', width: 46, align: 'right' },
    { title: 'Unit price', width: 88, align: 'right' },
    { title: 'Tax', width: 88, align: 'right' },
    { title: 'Amount', width: 92, align: 'right' },
  ];
  const descriptionWidth = width - figures.reduce((sum, column) => sum + column.width, 0);
  const columns: Column[] = [];
  let x = left;
  for (const column of [{ title: 'Description', width: descriptionWidth, align: 'left' as const }, ...figures]) {
    columns.push({ ...column, x });
    x += column.width;
  }
  return columns;
}

function lineCells(line: PdfLine, currency: string): Cell[] {
  const untaxed = line.tax_label === null && line.tax_cents === 0;
  return [
    { text: printable(line.description), note: line.tag === null ? null : printable(line.tag) },
    { text: formatQuantity(line.quantity), note: null },
    { text: formatMoney(line.unit_price_cents, currency), note: null },
    { text: untaxed ? '—' : formatMoney(line.tax_cents, currency), note: line.tax_label === null ? null : printable(line.tax_label) },
    { text: formatMoney(line.total_cents, currency), note: null },
  ];
}

function textWidth(column: Column): number {
  return column.width - 2 * CELL_PAD_X;
}

function noteMaxHeight(doc: Pdf): number {
  doc.font(REGULAR).fontSize(SMALL_SIZE);
  return doc.currentLineHeight(true) * MAX_CELL_NOTE_LINES;
}

/** The cell's height as drawn: main text and note, each measured at its own size and capped. */
function cellHeight(doc: Pdf, column: Column, cell: Cell): { text: number; note: number } {
  const width = textWidth(column);
  doc.font(REGULAR).fontSize(BODY_SIZE);
  const text = Math.min(doc.heightOfString(cell.text || ' ', { width }), MAX_CELL_TEXT_HEIGHT);
  if (!cell.note) return { text, note: 0 };
  const cap = noteMaxHeight(doc);
  doc.font(REGULAR).fontSize(SMALL_SIZE);
  return { text, note: Math.min(doc.heightOfString(cell.note, { width }), cap) + 1 };
}

function rowHeight(doc: Pdf, columns: Column[], cells: Cell[]): number {
  let tallest = 0;
  columns.forEach((column, i) => {
    const cell = cells[i];
    if (!cell) return;
    const { text, note } = cellHeight(doc, column, cell);
    tallest = Math.max(tallest, text + note);
  });
  return tallest + 2 * CELL_PAD_Y;
}

function drawTableHead(doc: Pdf, y: number, columns: Column[]): number {
  const { left, right } = frame(doc);
  doc.font(BOLD).fontSize(SMALL_SIZE).fillColor(MUTED);
  for (const column of columns) {
    doc.text(column.title.toUpperCase(), column.x + CELL_PAD_X, y, { width: textWidth(column), align: column.align, lineBreak: false });
  }
  const below = y + doc.currentLineHeight(true) + 4;
  rule(doc, below, left, right, MUTED);
  return below + 2;
}

function drawRow(doc: Pdf, y: number, columns: Column[], cells: Cell[], height: number, striped: boolean): void {
  const { left, width } = frame(doc);
  if (striped) doc.save().rect(left, y, width, height).fill(STRIPE).restore();
  columns.forEach((column, i) => {
    const cell = cells[i];
    if (!cell) return;
    const x = column.x + CELL_PAD_X;
    const options = { width: textWidth(column), align: column.align, ellipsis: true };
    const measured = cellHeight(doc, column, cell);
    // The explicit height keeps pdfkit from spilling a cell onto another page; it never binds for
    // ordinary text because the row was measured with the same caps.
    doc.font(REGULAR).fontSize(BODY_SIZE).fillColor(INK).text(cell.text, x, y + CELL_PAD_Y, { ...options, height: measured.text + 1 });
    if (cell.note) {
      doc.font(REGULAR).fontSize(SMALL_SIZE).fillColor(MUTED).text(cell.note, x, y + CELL_PAD_Y + measured.text + 1, { ...options, height: measured.note });
    }
  });
}

/** The lines, continuing onto new pages (each with the column titles again) when they run long. */
function drawItemTable(doc: Pdf, y: number, lines: PdfLine[], currency: string): number {
  const columns = tableColumns(doc);
  y = drawTableHead(doc, y, columns);
  if (lines.length === 0) {
    doc.font(REGULAR).fontSize(BODY_SIZE).fillColor(MUTED).text('No items.', frame(doc).left + CELL_PAD_X, y + CELL_PAD_Y);
    return doc.y + CELL_PAD_Y;
  }
  lines.forEach((line, index) => {
    const cells = lineCells(line, currency);
    const height = rowHeight(doc, columns, cells);
    const at = ensureSpace(doc, y, height);
    y = at === y ? y : drawTableHead(doc, at, columns);
    drawRow(doc, y, columns, cells, height, index % 2 === 1);
    y += height;
  });
  rule(doc, y, frame(doc).left, frame(doc).right);
  return y;
}

// ---------------------------------------------------------------------------------------------
// Totals and notes
// ---------------------------------------------------------------------------------------------

interface TotalRow {
  label: string;
  cents: number;
  strong?: boolean; // bold, with a rule above: a total the reader looks for
  gapBefore?: boolean; // starts a new group
}

const TOTALS_WIDTH = 260;
const TOTALS_GAP = 8;

function totalRowHeight(doc: Pdf, row: TotalRow, currency: string, labelWidth: number, valueWidth: number): number {
  doc.font(row.strong ? BOLD : REGULAR).fontSize(10);
  const label = doc.heightOfString(row.label, { width: labelWidth });
  const value = doc.heightOfString(formatMoney(row.cents, currency), { width: valueWidth });
  return Math.max(label, value) + 6 + (row.gapBefore ? TOTALS_GAP : 0);
}

/** A right-hand block of labelled amounts, kept whole on one page. */
function drawTotals(doc: Pdf, y: number, rows: TotalRow[], currency: string): number {
  const { right } = frame(doc);
  const x = right - TOTALS_WIDTH;
  const labelWidth = TOTALS_WIDTH * 0.5;
  const valueWidth = TOTALS_WIDTH - labelWidth - CELL_PAD_X;
  const heights = rows.map((row) => totalRowHeight(doc, row, currency, labelWidth, valueWidth));
  y = ensureSpace(doc, y + 10, heights.reduce((sum, h) => sum + h, 0));
  rows.forEach((row, index) => {
    if (row.gapBefore) y += TOTALS_GAP;
    if (row.strong) rule(doc, y, x, right, MUTED);
    doc.font(row.strong ? BOLD : REGULAR).fontSize(10).fillColor(row.strong ? INK : MUTED);
    doc.text(row.label, x + CELL_PAD_X, y + 3, { width: labelWidth });
    doc.fillColor(INK).text(formatMoney(row.cents, currency), x + labelWidth, y + 3, { width: valueWidth, align: 'right' });
    y += (heights[index] ?? 0) - (row.gapBefore ? TOTALS_GAP : 0);
  });
  return y;
}

/** Notes flow under the totals; pdfkit itself carries a note that is longer than the page over. */
function drawNotes(doc: Pdf, y: number, notes: string[]): number {
  const visible = notes.filter((note) => note.trim() !== '');
  if (visible.length === 0) return y;
  const { left, width } = frame(doc);
  // Keep the heading with at least the start of the first note.
  y = ensureSpace(doc, y + 20, 48);
  doc.font(BOLD).fontSize(10).fillColor(INK).text('Notes', left, y, { width });
  doc.font(REGULAR).fontSize(BODY_SIZE).fillColor(INK);
  for (const note of visible) {
    doc.text(printable(note), left, doc.y + 4, { width });
  }
  return doc.y;
}

// ---------------------------------------------------------------------------------------------
// Per-page marks
// ---------------------------------------------------------------------------------------------

/** The footer sits below the content area, so the bottom margin is lifted while it is written. */
function drawFooter(doc: Pdf, left: string, right: string): void {
  const { margins, height } = doc.page;
  const bottomMargin = margins.bottom;
  margins.bottom = 0;
  const area = frame(doc);
  const y = height - BOTTOM_MARGIN + 24;
  rule(doc, y - 6, area.left, area.right);
  doc.font(REGULAR).fontSize(SMALL_SIZE).fillColor(MUTED);
  doc.text(printable(left), area.left, y, { width: area.width * 0.7, lineBreak: false, ellipsis: true });
  doc.text(right, area.left + area.width * 0.7, y, { width: area.width * 0.3, align: 'right', lineBreak: false });
  margins.bottom = bottomMargin;
}

/** A large translucent word across the page (VOID, DRAFT) that cannot be cropped or missed. */
function drawWatermark(doc: Pdf, word: string): void {
  const { width, height } = doc.page;
  const size = 110;
  doc.save();
  doc.rotate(-35, { origin: [width / 2, height / 2] });
  doc.font(BOLD).fontSize(size).fillColor(ALERT).fillOpacity(0.12);
  doc.text(word, 0, height / 2 - size / 2, { width, align: 'center', lineBreak: false });
  doc.restore();
}

// ---------------------------------------------------------------------------------------------
// The two documents
// ---------------------------------------------------------------------------------------------

export async function renderInvoicePdf(invoice: InvoiceDocument): Promise<Buffer> {
  const reference = invoice.number ?? 'DRAFT';
  const name = invoice.number ? `Invoice ${invoice.number}` : 'Invoice DRAFT';
  const doc = await openDocument(name, invoice.seller.name, invoice.issue_date);
  const meta: Heading['meta'] = [
    ['Invoice date', invoice.issue_date],
    ['Due date', invoice.due_date],
  ];
  if (invoice.period_start && invoice.period_end) meta.push(['Service period', `${invoice.period_start} – ${invoice.period_end}`]);
  meta.push(['Status', statusLabel(invoice.status)]);

  let y = drawHeading(doc, { kind: 'INVOICE', reference, alert: invoice.number === null, meta, seller: invoice.seller, billTo: invoice.bill_to, title: null });
  y = drawItemTable(doc, y, invoice.lines, invoice.currency_code);
  y = drawTotals(
    doc,
    y,
    [
      { label: 'Subtotal', cents: invoice.subtotal_cents },
      { label: 'Tax', cents: invoice.tax_cents },
      { label: 'Total', cents: invoice.total_cents, strong: true },
      { label: 'Amount paid', cents: invoice.amount_paid_cents, gapBefore: true },
      { label: 'Credited', cents: invoice.credited_cents },
      { label: 'Balance due', cents: invoice.balance_cents, strong: true },
    ],
    invoice.currency_code,
  );
  drawNotes(doc, y, invoice.notes);

  const watermark = invoice.status === 'void' ? 'VOID' : invoice.number === null || invoice.status === 'draft' ? 'DRAFT' : null;
  return finish(doc, `${name} · ${invoice.seller.name}`, watermark);
}

export async function renderQuotePdf(quote: QuoteDocument): Promise<Buffer> {
  const name = `Quote ${quote.number}`;
  const doc = await openDocument(name, quote.seller.name, quote.issue_date);
  const meta: Heading['meta'] = [
    ['Quote date', quote.issue_date],
    ['Valid until', quote.valid_until],
    ['Status', statusLabel(quote.status)],
  ];

  let y = drawHeading(doc, { kind: 'QUOTE', reference: quote.number, alert: false, meta, seller: quote.seller, billTo: quote.bill_to, title: quote.title || null });
  y = drawItemTable(doc, y, quote.lines, quote.currency_code);
  y = drawTotals(
    doc,
    y,
    [
      { label: 'Subtotal', cents: quote.subtotal_cents },
      { label: 'Tax', cents: quote.tax_cents },
      { label: 'Total', cents: quote.total_cents, strong: true },
      { label: 'Monthly recurring', cents: quote.mrr_cents, gapBefore: true },
      { label: 'One-off services', cents: quote.nrr_cents },
      { label: 'Hardware', cents: quote.hardware_cents },
    ],
    quote.currency_code,
  );
  drawNotes(doc, y, quote.notes);

  return finish(doc, `${name} · ${quote.seller.name}`, quote.status === 'draft' ? 'DRAFT' : null);
}
