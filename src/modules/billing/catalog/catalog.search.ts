import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/** Catalogue items: name as title, kind and SKU as subtitle, description as body; the SKU is the identifier. */
export const serviceCatalogSearchIndexer: SearchIndexer = {
  type: 'service_catalog',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('service_catalog')
      .select(['service_id', 'item_kind', 'service_name', 'sku', 'description', 'is_active', 'updated_at'])
      .where('tenant', '=', tenant)
      .where('service_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'service_catalog' as const,
      id: r.service_id,
      title: r.service_name,
      subtitle: joined(r.item_kind, r.sku, r.is_active ? null : 'inactive'),
      body: r.description,
      url: `/${r.item_kind === 'product' ? 'products' : 'services'}/${r.service_id}`,
      identifier: r.sku,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'service_catalog', 'service_id', tenant, afterId, limit),
};
