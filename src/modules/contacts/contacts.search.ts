import type { Executor } from '../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../platform/search/types.ts';

/** Contacts: full name; subtitle `client | email` (so a client rename re-syncs its contacts); role and phone as body. */
export const contactSearchIndexer: SearchIndexer = {
  type: 'contact',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('contacts as c')
      .leftJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'c.tenant').onRef('cl.client_id', '=', 'c.client_id'))
      .select(['c.contact_id', 'c.client_id', 'c.full_name', 'c.email', 'c.phone', 'c.role', 'c.updated_at', 'cl.client_name'])
      .where('c.tenant', '=', tenant)
      .where('c.contact_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'contact' as const,
      id: r.contact_id,
      title: r.full_name,
      subtitle: joined(r.client_name, r.email),
      body: joined(r.role, r.phone, r.email),
      url: `/contacts/${r.contact_id}`,
      clientId: r.client_id,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'contacts', 'contact_id', tenant, afterId, limit),
};
