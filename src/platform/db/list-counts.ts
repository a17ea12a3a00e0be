import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Maintained totals of the unfiltered lists integrators page through most (migration 0025): triggers add
 * a delta row per write statement, readers sum them, compaction folds them. The names here are the lists
 * the migration counts (one trigger function each).
 */
export type CountedList = 'clients' | 'contacts' | 'tickets' | 'assets' | 'projects';

export interface ListCounter {
  tenant: string;
  list: CountedList;
}

/** A tenant's maintained total of one list, as a scalar subquery (a handful of index entries to sum). */
export const maintainedCount = (c: ListCounter) =>
  sql<number | string>`(select coalesce(sum(delta), 0) from list_counts where tenant = ${c.tenant} and list = ${c.list})`;

/**
 * Folds every (tenant, list)'s delta rows into one, in one statement. Safe beside writers (their new
 * deltas are not in the statement's snapshot, so they are left for the next run) and beside another
 * compaction (a row the other deleted is skipped; sums are preserved either way).
 */
export async function compactListCounts(db: Kysely<DB>): Promise<void> {
  await sql`
    with groups as (select tenant, list from list_counts group by tenant, list having count(*) > 1 limit 10000),
    gone as (
      delete from list_counts c using groups g where c.tenant = g.tenant and c.list = g.list
      returning c.tenant, c.list, c.delta
    )
    insert into list_counts (tenant, list, delta) select tenant, list, sum(delta) from gone group by tenant, list
  `.execute(db);
}
