import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** Pending rows (writes) one merge transaction starts from (~8 postings each): a second or so of work at most. */
const MERGE_BATCH = 5000;

/**
 * Moves the pending postings of written documents into the ranked head postings (migration 0032), and their new
 * words into the tenant's typo dictionary (migration 0038), a batch of
 * writes per transaction (with every other write of their documents) until none is left or another merge holds
 * the lock. Safe beside writers (a document written meanwhile keeps a pending row for the next merge) and beside
 * another merge (only one runs; the other returns). The worker runs it every second; the search engine reads
 * pending documents from their rows meanwhile, so how far behind it is changes the speed of a search, never its
 * results. Returns the writes merged.
 */
export async function mergePendingPostings(db: Kysely<DB>, opts: { batch?: number; vacuum?: boolean } = {}): Promise<number> {
  const { batch = MERGE_BATCH, vacuum = true } = opts;
  let merged = 0;
  for (;;) {
    const { rows } = await sql<{ n: number }>`select search_postings_merge(${batch}::int) as n`.execute(db);
    const n = rows[0]!.n;
    merged += n;
    // Fewer than a batch: the claim took every pending row it could see.
    if (n < batch) break;
  }
  // Every search reads the tenant's range of the pending rows' index: the rows just merged stay in it, dead, until a
  // vacuum (after a 1M-row load, seconds per search until autovacuum came round to it; PGlite has none). A few
  // milliseconds for a table this size; a caller merging many times in a row (the re-index) passes `vacuum: false`
  // and vacuums once with vacuumPendingPostings.
  if (merged > 0 && vacuum) await vacuumPendingPostings(db);
  return merged;
}

/** Vacuums the pending postings (their merged rows stay in the table's index until then). */
export async function vacuumPendingPostings(db: Kysely<DB>): Promise<void> {
  await sql`vacuum search_postings_pending`.execute(db);
}
