import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/**
 * Interactions: the title, the type with the client and contact names as subtitle, the notes as body.
 * Internal records: a client-portal key never finds them (the client id still scopes them to their client).
 */
export const interactionSearchIndexer: SearchIndexer = {
  type: 'interaction',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('interactions as i')
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'i.tenant').onRef('cl.client_id', '=', 'i.client_id'))
      .leftJoin('contacts as ct', (j) => j.onRef('ct.tenant', '=', 'i.tenant').onRef('ct.contact_id', '=', 'i.contact_id'))
      .select(['i.interaction_id', 'i.client_id', 'i.interaction_type', 'i.title', 'i.notes', 'i.updated_at', 'cl.client_name', 'ct.full_name as contact_name'])
      .where('i.tenant', '=', tenant)
      .where('i.interaction_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'interaction' as const,
      id: r.interaction_id,
      title: r.title,
      subtitle: joined(r.interaction_type, r.client_name, r.contact_name),
      body: r.notes,
      url: `/interactions/${r.interaction_id}`,
      clientId: r.client_id,
      isInternal: true,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'interactions', 'interaction_id', tenant, afterId, limit),
};
