import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchDocument, SearchIndexer } from '../../../platform/search/types.ts';

/**
 * Uploaded documents in search: title = file name, body = the tags and names of the assets it is
 * attached to. A document belongs to a client only when every asset it is attached to is that
 * client's; otherwise (several clients, or none) it stays internal, so portal keys never see it.
 * Reading it also needs asset:read, since documents are reached through their assets.
 */
export const documentIndexer: SearchIndexer = {
  type: 'document',
  async load(db: Executor, tenant: string, ids: readonly string[]): Promise<SearchDocument[]> {
    if (ids.length === 0) return [];
    const docs = await db
      .selectFrom('documents')
      .select(['document_id', 'file_name', 'mime_type', 'created_at'])
      .where('tenant', '=', tenant)
      .where('document_id', 'in', [...ids])
      .execute();
    const links = await db
      .selectFrom('asset_documents as ad')
      .innerJoin('assets as a', (j) => j.onRef('a.tenant', '=', 'ad.tenant').onRef('a.asset_id', '=', 'ad.asset_id'))
      .select(['ad.document_id', 'a.asset_id', 'a.asset_tag', 'a.name', 'a.client_id'])
      .where('ad.tenant', '=', tenant)
      .where('ad.document_id', 'in', [...ids])
      .orderBy('ad.created_at')
      .execute();
    return docs.map((d) => {
      const mine = links.filter((l) => l.document_id === d.document_id);
      const clients = new Set(mine.map((l) => l.client_id));
      const clientId = clients.size === 1 ? [...clients][0]! : null;
      return {
        type: 'document',
        id: d.document_id,
        title: d.file_name,
        subtitle: joined(d.mime_type, mine.length === 1 ? `${mine[0]!.name} (${mine[0]!.asset_tag})` : mine.length > 1 ? `${mine.length} assets` : null),
        body: mine.map((l) => `${l.asset_tag} ${l.name}`).join('\n') || null,
        url: mine.length > 0 ? `/assets/${mine[0]!.asset_id}/documents` : `/documents/${d.document_id}`,
        clientId,
        isInternal: clientId === null,
        requiredPermission: 'asset:read',
        updatedAt: d.created_at,
      };
    });
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'documents', 'document_id', tenant, afterId, limit),
};
