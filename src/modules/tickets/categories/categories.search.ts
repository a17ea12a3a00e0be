import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/** Ticket categories: name; subtitle `parent category | board`. */
export const categorySearchIndexer: SearchIndexer = {
  type: 'category',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('ticket_categories as c')
      .leftJoin('ticket_categories as p', (j) => j.onRef('p.tenant', '=', 'c.tenant').onRef('p.category_id', '=', 'c.parent_category_id'))
      .leftJoin('boards as b', (j) => j.onRef('b.tenant', '=', 'c.tenant').onRef('b.board_id', '=', 'c.board_id'))
      .select(['c.category_id', 'c.category_name', 'c.parent_category_id', 'c.board_id', 'c.updated_at', 'p.category_name as parent_name', 'b.board_name'])
      .where('c.tenant', '=', tenant)
      .where('c.category_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'category' as const,
      id: r.category_id,
      parentType: r.parent_category_id ? ('category' as const) : null,
      parentId: r.parent_category_id,
      title: r.category_name,
      subtitle: joined(r.parent_name, r.board_name),
      url: `/categories/${r.category_id}`,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'ticket_categories', 'category_id', tenant, afterId, limit),
};
