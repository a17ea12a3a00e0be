import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';
import { searchIndexerOf } from '../../platform/search/registry.ts';
import { findTenantBySlug } from '../tenants/index.ts';
import { allTenantIds, reindexSearch, type ReindexCounts } from './reindex.ts';
import { SEARCH_TYPES, type SearchType } from './search.types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function tenantIdOf(db: Kysely<DB>, given: string): Promise<string> {
  if (UUID.test(given)) {
    const row = await db.selectFrom('tenants').select('tenant_id').where('tenant_id', '=', given.toLowerCase()).executeTakeFirst();
    if (row) return row.tenant_id;
  }
  const bySlug = await findTenantBySlug(db, given);
  if (!bySlug) throw new AppError('NOT_FOUND', `No tenant with slug or id '${given}'`);
  return bySlug.tenant_id;
}

/**
 * `psa search reindex [--tenant S] [--type T]`: rebuilds the index from the source tables (all tenants
 * and every indexed type unless narrowed) and reports rows indexed and stale rows removed.
 */
export async function searchReindexCommand(db: Kysely<DB>, opts: { tenant?: string; type?: string }): Promise<{ results: ReindexCounts[]; indexed: number; removed: number; lines: string[] }> {
  let types: SearchType[] | undefined;
  if (opts.type !== undefined) {
    if (!(SEARCH_TYPES as readonly string[]).includes(opts.type)) throw new AppError('VALIDATION_ERROR', `--type must be one of ${SEARCH_TYPES.join(', ')}`);
    if (!searchIndexerOf(opts.type)) throw new AppError('VALIDATION_ERROR', `type '${opts.type}' has no indexer yet (its area is not built)`);
    types = [opts.type as SearchType];
  }
  const tenants = opts.tenant !== undefined ? [await tenantIdOf(db, opts.tenant)] : await allTenantIds(db);
  const results = await reindexSearch(db, { tenants, types });
  const indexed = results.reduce((n, r) => n + r.indexed, 0);
  const removed = results.reduce((n, r) => n + r.removed, 0);
  const lines = [
    ...results.filter((r) => r.indexed > 0 || r.removed > 0).map((r) => `${r.tenant} ${r.type}: ${r.indexed} indexed, ${r.removed} removed`),
    `reindexed ${tenants.length} tenant(s): ${indexed} rows indexed, ${removed} stale rows removed`,
  ];
  return { results, indexed, removed, lines };
}
