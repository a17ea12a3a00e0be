import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';

/**
 * Helpers for the search indexers that live in each area (the `*.search.ts` files). They sit in the
 * platform so an indexer never imports the search module at runtime: the indexer registry imports the
 * indexers, and a runtime edge back would make an import cycle.
 */

/**
 * Keyset page of a tenant's ids in one source table (an indexer's `listIds`). Table and column come
 * from indexer code, never from input.
 */
export async function listIdsOf(db: Executor, table: string, idColumn: string, tenant: string, afterId: string | null, limit: number): Promise<string[]> {
  const after = afterId === null ? sql`` : sql`and ${sql.ref(idColumn)} > ${afterId}::uuid`;
  const rows = await sql<{ id: string }>`select ${sql.ref(idColumn)} as id from ${sql.table(table)}
    where tenant = ${tenant}::uuid ${after} order by ${sql.ref(idColumn)} limit ${limit}`.execute(db);
  return rows.rows.map((r) => r.id);
}

/** `a | b` of the parts that are present (subtitles). */
export const joined = (...parts: (string | null | undefined)[]): string | null => {
  const present = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  return present.length > 0 ? present.join(' | ') : null;
};
