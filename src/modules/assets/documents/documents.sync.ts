import type { Executor } from '../../../platform/db/executor.ts';
import { syncSearch } from '../../../platform/search/writer.ts';

/** The ids of the documents attached to an asset (read before the asset goes, synced after). */
export async function documentIdsOfAsset(db: Executor, tenant: string, assetId: string): Promise<string[]> {
  const rows = await db.selectFrom('asset_documents').select('document_id').where('tenant', '=', tenant).where('asset_id', '=', assetId).execute();
  return rows.map((r) => r.document_id);
}

/** Re-indexes documents whose search entry depends on their assets (client, names, tags). */
export const syncDocuments = (db: Executor, tenant: string, documentIds: readonly string[]): Promise<void> => syncSearch(db, tenant, 'document', documentIds);
