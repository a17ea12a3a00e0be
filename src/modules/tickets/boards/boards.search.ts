import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/** Ticket boards: name and description. Settings records: no client, so portal keys never see them. */
export const boardSearchIndexer: SearchIndexer = {
  type: 'board',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('boards')
      .select(['board_id', 'board_name', 'description', 'is_active', 'updated_at'])
      .where('tenant', '=', tenant)
      .where('board_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'board' as const,
      id: r.board_id,
      title: r.board_name,
      subtitle: r.is_active ? null : 'inactive',
      body: r.description,
      url: `/boards/${r.board_id}`,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'boards', 'board_id', tenant, afterId, limit),
};

/**
 * Ticket statuses, children of their board (subtitle `board | closed`). Statuses of several record
 * kinds may share this type one day, so each row names the permission it needs.
 */
export const statusSearchIndexer: SearchIndexer = {
  type: 'status',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('ticket_statuses as s')
      .innerJoin('boards as b', (j) => j.onRef('b.tenant', '=', 's.tenant').onRef('b.board_id', '=', 's.board_id'))
      .select(['s.status_id', 's.board_id', 's.name', 's.is_closed', 's.updated_at', 'b.board_name'])
      .where('s.tenant', '=', tenant)
      .where('s.status_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'status' as const,
      id: r.status_id,
      parentType: 'board' as const,
      parentId: r.board_id,
      title: r.name,
      subtitle: joined(r.board_name, r.is_closed ? 'closed' : 'open'),
      url: `/boards/${r.board_id}/statuses/${r.status_id}`,
      requiredPermission: 'ticket:read',
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'ticket_statuses', 'status_id', tenant, afterId, limit),
};

/** Statuses and categories of a board: their rows embed the board's name. */
export async function boardChildren(db: Executor, tenant: string, boardId: string): Promise<{ statuses: string[]; categories: string[] }> {
  const [statuses, categories] = [
    await db.selectFrom('ticket_statuses').select('status_id').where('tenant', '=', tenant).where('board_id', '=', boardId).execute(),
    await db.selectFrom('ticket_categories').select('category_id').where('tenant', '=', tenant).where('board_id', '=', boardId).execute(),
  ];
  return { statuses: statuses.map((s) => s.status_id), categories: categories.map((c) => c.category_id) };
}
