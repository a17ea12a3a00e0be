import type { Executor } from '../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../platform/search/types.ts';

/** Deals: title, number as identifier, client, stage and status as subtitle, the next action and loss notes as body. */
export const opportunitySearchIndexer: SearchIndexer = {
  type: 'opportunity',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('opportunities as o')
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'o.tenant').onRef('cl.client_id', '=', 'o.client_id'))
      .select(['o.opportunity_id', 'o.opportunity_number', 'o.client_id', 'o.title', 'o.status', 'o.stage', 'o.opportunity_type', 'o.next_action', 'o.loss_notes', 'o.lost_to', 'o.updated_at', 'cl.client_name'])
      .where('o.tenant', '=', tenant)
      .where('o.opportunity_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'opportunity' as const,
      id: r.opportunity_id,
      title: r.title,
      subtitle: joined(r.client_name, r.opportunity_type.replace('_', ' '), r.status === 'open' ? r.stage : r.status),
      body: [r.next_action, r.loss_notes, r.lost_to].filter(Boolean).join('\n') || null,
      url: `/opportunities/${r.opportunity_id}`,
      identifier: r.opportunity_number,
      clientId: r.client_id,
      isInternal: true,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'opportunities', 'opportunity_id', tenant, afterId, limit),
};
