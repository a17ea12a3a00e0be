import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/**
 * Tags have no table of their own: a tag is a text on tickets (`ticket_tags`), unique per ticket
 * regardless of case. The index holds one row per distinct tag (case-insensitively) per tenant, with
 * the stable id `md5(lower(tag))::uuid`, computed by PostgreSQL on both sides so it can never differ;
 * the row exists while at least one ticket carries the tag. Subtitle: how many tickets carry it.
 */
export const tagSearchIndexer: SearchIndexer = {
  type: 'tag',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await sql<{ id: string; tag: string; n: number; updated_at: Date }>`
      select md5(lower(tag))::uuid as id, min(tag) as tag, count(*)::int as n, max(created_at) as updated_at
      from ticket_tags
      where tenant = ${tenant}::uuid and md5(lower(tag))::uuid = any(${[...ids]}::uuid[])
      group by lower(tag)`.execute(db);
    return rows.rows.map((r) => ({
      type: 'tag' as const,
      id: r.id,
      title: r.tag,
      subtitle: `${r.n} ticket${r.n === 1 ? '' : 's'}`,
      url: `/tickets?tag=${encodeURIComponent(r.tag)}`,
      requiredPermission: 'ticket:read',
      updatedAt: r.updated_at,
    }));
  },
  async listIds(db, tenant, afterId, limit) {
    const after = afterId === null ? sql`` : sql`and md5(lower(tag))::uuid > ${afterId}::uuid`;
    const rows = await sql<{ id: string }>`
      select distinct md5(lower(tag))::uuid as id from ticket_tags
      where tenant = ${tenant}::uuid ${after} order by 1 limit ${limit}`.execute(db);
    return rows.rows.map((r) => r.id);
  },
};
