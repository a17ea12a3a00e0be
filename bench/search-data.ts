/**
 * The search benchmarks' data (bench/search.ts, bench/search-writes.ts): a seeded synthetic vocabulary with a
 * Zipf–Mandelbrot distribution, documents across record types in service-desk proportions, and the loader that
 * writes them through the real index writer in batches.
 */
import { groupBy } from '../src/platform/collections.ts';
import type { Database } from '../src/platform/db/database.ts';
import { withTransaction, type Executor } from '../src/platform/db/executor.ts';
import { upsertSearchDocuments } from '../src/platform/search/writer.ts';
import type { SearchDocument } from '../src/platform/search/types.ts';
import type { SearchType } from '../src/modules/search/index.ts';

export const BATCH = 1_000;
const VOCABULARY = 30_000;
const ZIPF_Q = 50;

// Deterministic pseudo-random numbers (mulberry32), so runs are comparable.
let seed = 0x5eed;
export function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

// Pronounceable distinct words from syllables; rank 0 is the most common. Zipf–Mandelbrot (s = 1,
// q = 50): plain Zipf would make the top words near-stopwords found in 90 % of rows; with the offset the
// most common word is in roughly one row in ten, like "printer" or "email" in a service desk.
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'ha', 'je', 'bo', 'ce', 'ly', 'mo', 'nu', 'qua', 'ri', 'st', 'wen', 'xi', 'yo', 'dra', 'plo', 'tri', 'gon'];
export const words: string[] = [];
{
  const seen = new Set<string>();
  while (words.length < VOCABULARY) {
    const n = 2 + Math.floor(rnd() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += pick(SYLLABLES);
    if (!seen.has(w)) { seen.add(w); words.push(w); }
  }
}
// Ranks 10–49 end in digits, as service-desk words like "office365", "win11" or a host name do: shaped like an
// identifier (search.parse.ts), which the engine must still serve as a word. No other class draws from these ranks.
for (let r = 10; r < 50; r++) words[r] = `${words[r]!.slice(0, 8)}${r}`;
const cumulative: number[] = [];
{
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) { sum += 1 / (r + 1 + ZIPF_Q); cumulative.push(sum); }
  for (let r = 0; r < VOCABULARY; r++) cumulative[r]! /= sum;
}
function zipfWord(): string {
  const u = rnd();
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (cumulative[mid]! < u) lo = mid + 1; else hi = mid; }
  return words[lo]!;
}
const text = (n: number) => Array.from({ length: n }, zipfWord).join(' ');
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
// Time-ordered like the application's ids (UUIDv7, platform/ids.ts): each id's first 48 bits count up, so rows
// arrive in key order within a type and term as they do from real writes; the rest is seeded random.
let idClock = Date.UTC(2026, 0, 1);
export const uuid = () => {
  const h = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const t = (idClock++).toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

// Share of rows per type, roughly like a service desk's data.
const MIX: [SearchType, number][] = [
  ['ticket', 0.25], ['ticket_comment', 0.35], ['contact', 0.08], ['client', 0.02], ['project_task', 0.1],
  ['asset', 0.08], ['invoice', 0.05], ['invoice_item', 0.05], ['kb_article', 0.02],
];
const PREFIX: Partial<Record<SearchType, string>> = { ticket: 'T', invoice: 'INV', project_task: 'P' };

export function documents(count: number, clients: string[], users: string[], start: number): SearchDocument[] {
  const docs: SearchDocument[] = [];
  for (let i = 0; i < count; i++) {
    const n = start + i;
    let u = rnd();
    let type: SearchType = 'ticket';
    for (const [t, share] of MIX) { if (u < share) { type = t; break; } u -= share; }
    const seq = n + 1;
    const identifier = PREFIX[type] ? `${PREFIX[type]}-${String(seq).padStart(6, '0')}` : null;
    const long = type === 'ticket_comment' || type === 'kb_article';
    docs.push({
      type,
      id: uuid(),
      title: capital(text(3 + Math.floor(rnd() * 5))),
      subtitle: identifier ? `${capital(zipfWord())} ${capital(zipfWord())} | ${identifier}` : capital(zipfWord()),
      body: type === 'client' || type === 'contact' ? null : text(long ? 20 + Math.floor(rnd() * 60) : 5 + Math.floor(rnd() * 25)),
      url: `/${type}/${n}`,
      identifier,
      clientId: pick(clients),
      isInternal: type === 'ticket_comment' && rnd() < 0.3,
      visibleToUserIds: type === 'project_task' && rnd() < 0.2 ? [pick(users)] : null,
      updatedAt: new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 700 * 86_400_000)),
    });
  }
  return docs;
}

/** How a load writes documents (the real writer unless told otherwise). */
export type BatchWriter = (db: Executor, tenant: string, docs: readonly SearchDocument[]) => Promise<void>;

/**
 * Loads `rows` generated documents into `tenant` through the real writer, `writers` batches at a time; returns the
 * seconds taken. A batch is one transaction with one write per record type, as the application writes them
 * (syncSearch and the re-index index one type at a time).
 */
export async function load(
  database: Database, tenant: string, rows: number, clients: string[], users: string[], writers: number, write: BatchWriter = upsertSearchDocuments,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  const writer = async () => {
    for (;;) {
      const start = next;
      if (start >= rows) return;
      next += BATCH;
      const docs = documents(Math.min(BATCH, rows - start), clients, users, start);
      await withTransaction(database.db, async (trx) => {
        for (const group of groupBy(docs, (d) => d.type).values()) await write(trx, tenant, group);
      });
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return (performance.now() - started) / 1000;
}
