import type { Executor } from '../../platform/db/executor.ts';
import type { SearchDocument, SearchIndexer } from '../../platform/search/types.ts';

/** Assets in search: title = name, subtitle = `client | tag`, body = serial, location and notes. */
export const assetIndexer: SearchIndexer = {
  type: 'asset',
  async load(db: Executor, tenant: string, ids: readonly string[]): Promise<SearchDocument[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('assets as a')
      .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.client_id', '=', 'a.client_id'))
      .where('a.tenant', '=', tenant)
      .where('a.asset_id', 'in', [...ids])
      .select(['a.asset_id', 'a.name', 'a.asset_tag', 'a.serial_number', 'a.location', 'a.notes', 'a.client_id', 'a.updated_at', 'a.notes_updated_at', 'c.client_name'])
      .execute();
    return rows.map((r) => ({
      type: 'asset',
      id: r.asset_id,
      title: r.name,
      subtitle: `${r.client_name} | ${r.asset_tag}`,
      body: [r.serial_number, r.location, r.notes].filter((s): s is string => !!s).join('\n') || null,
      url: `/assets/${r.asset_id}`,
      identifier: r.asset_tag,
      clientId: r.client_id,
      updatedAt: r.notes_updated_at && r.notes_updated_at > r.updated_at ? r.notes_updated_at : r.updated_at,
    }));
  },
  async listIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]> {
    let q = db.selectFrom('assets').select('asset_id').where('tenant', '=', tenant).orderBy('asset_id').limit(limit);
    if (afterId !== null) q = q.where('asset_id', '>', afterId);
    return (await q.execute()).map((r) => r.asset_id);
  },
};
