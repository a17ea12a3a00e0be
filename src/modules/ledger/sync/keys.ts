import { createHash } from 'node:crypto';

/**
 * The ledger's idempotency key for one write (QuickBooks `requestid`, at most 50 characters): a UUID-shaped
 * hash of what the write is, so a retry after a crash — before our mapping was written — sends the same key
 * and the ledger answers with the record it already made instead of a second one.
 */
export function requestIdOf(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const SUFFIXES = /\b(incorporated|inc|llc|l\.l\.c|ltd|limited|corp|corporation|co|company|gmbh|plc|pty|sa|bv)\b\.?/g;

/**
 * A company name folded for matching our clients with the ledger's customers: case, accents, punctuation,
 * whitespace and legal suffixes (Inc, LLC, Ltd…) do not count. "Acme, Inc." and "ACME inc" match.
 */
export function matchKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(SUFFIXES, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}
