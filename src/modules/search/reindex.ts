import { sql, type Kysely } from 'kysely';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { rebuildLexicon } from '../../platform/search/lexicon-words.ts';
import { mergePendingPostings, vacuumPendingPostings } from '../../platform/search/postings.ts';
import { indexedSearchTypes, searchIndexerOf } from '../../platform/search/registry.ts';
import { removeFromSearch, upsertSearchDocuments } from '../../platform/search/writer.ts';
import type { SearchType } from './search.types.ts';

export interface ReindexCounts {
  tenant: string;
  type: SearchType;
  indexed: number;
  removed: number;
}

/**
 * Rebuilds the index of the given tenants and types from the source tables: keyset batches of ids
 * (`listIds`), each loaded and written in its own transaction, then index rows whose source is gone are
 * removed, also in batches. Unchanged rows are not rewritten (see upsertSearchDocuments), so a re-index
 * of an up-to-date index is cheap and leaves open search cursors undisturbed. The postings of what it wrote
 * are merged after each batch (a re-index may run where no worker does, and a backlog slows every search). Each
 * tenant's typo dictionary is then rewritten from its documents, dropping words no document has any more.
 */
export async function reindexSearch(
  db: Kysely<DB>,
  opts: { tenants: readonly string[]; types?: readonly SearchType[]; batchSize?: number; onProgress?: (c: ReindexCounts) => void },
): Promise<ReindexCounts[]> {
  const batch = opts.batchSize ?? 500;
  const types = (opts.types ?? (indexedSearchTypes() as SearchType[])).filter((t) => searchIndexerOf(t));
  const out: ReindexCounts[] = [];
  for (const tenant of opts.tenants) {
    for (const type of types) {
      const indexer = searchIndexerOf(type)!;
      const counts: ReindexCounts = { tenant, type, indexed: 0, removed: 0 };
      let after: string | null = null;
      for (;;) {
        const cursor: string | null = after;
        const ids = await indexer.listIds(db, tenant, cursor, batch);
        if (ids.length === 0) break;
        counts.indexed += await withTransaction(db, async (trx) => {
          const docs = await indexer.load(trx, tenant, ids);
          await upsertSearchDocuments(trx, tenant, docs);
          return docs.length;
        });
        await mergePendingPostings(db, { vacuum: false });
        after = ids[ids.length - 1]!;
        if (ids.length < batch) break;
      }
      let afterStale: string | null = null;
      for (;;) {
        const from: string | null = afterStale;
        const indexed = await db
          .selectFrom('search_documents')
          .select('object_id')
          .where('tenant', '=', tenant)
          .where('object_type', '=', type)
          .$if(from !== null, (qb) => qb.where('object_id', '>', from!))
          .orderBy('object_id')
          .limit(batch)
          .execute();
        if (indexed.length === 0) break;
        const ids = indexed.map((r) => r.object_id);
        counts.removed += await withTransaction(db, async (trx) => {
          const live = new Set((await indexer.load(trx, tenant, ids)).map((d) => d.id));
          const gone = ids.filter((id) => !live.has(id));
          await removeFromSearch(trx, tenant, type, gone);
          return gone.length;
        });
        afterStale = ids[ids.length - 1]!;
        if (ids.length < batch) break;
      }
      await mergePendingPostings(db, { vacuum: false });
      await vacuumPendingPostings(db);
      opts.onProgress?.(counts);
      out.push(counts);
    }
    await withTransaction(db, (trx) => rebuildLexicon(trx, tenant));
  }
  return out;
}

/** Every tenant id (for a re-index of all tenants). */
export async function allTenantIds(db: Kysely<DB>): Promise<string[]> {
  const rows = await sql<{ tenant_id: string }>`select tenant_id from tenants order by tenant_id`.execute(db);
  return rows.rows.map((r) => r.tenant_id);
}
