import type { Executor } from '../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../platform/search/types.ts';

/**
 * Users: display name (username when unnamed), e-mail and username as subtitle. A portal user's row
 * carries their client, so only internal callers and that client's portal keys (with user:read) see it.
 */
export const userSearchIndexer: SearchIndexer = {
  type: 'user',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('users')
      .select(['user_id', 'username', 'email', 'first_name', 'last_name', 'user_type', 'client_id', 'is_inactive', 'updated_at'])
      .where('tenant', '=', tenant)
      .where('user_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'user' as const,
      id: r.user_id,
      title: [r.first_name, r.last_name].filter((n) => n && n.trim() !== '').join(' ') || r.username,
      subtitle: joined(r.email, r.username !== r.email ? r.username : null, r.is_inactive ? 'inactive' : null),
      url: `/users/${r.user_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'users', 'user_id', tenant, afterId, limit),
};
