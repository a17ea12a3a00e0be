import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { syncSearch } from '../../../platform/search/writer.ts';

// Kept apart from the indexer so the indexer registry never imports the sync module back (cycle).
/** Re-indexes the tags with these texts (added or removed on a ticket). */
export async function syncTags(db: Executor, tenant: string, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  const rows = await sql<{ id: string }>`select distinct md5(lower(t))::uuid as id from unnest(${[...tags]}::text[]) as t`.execute(db);
  await syncSearch(db, tenant, 'tag', rows.rows.map((r) => r.id));
}
