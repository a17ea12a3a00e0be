import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { findClientRow, type MergeContext, type MergeParticipant } from '../clients/index.ts';
import { ASSET_EVENTS, emitAssetEvent } from './assets.events.ts';
import { findAssetViews } from './assets.repo.ts';
import { syncDocuments } from './documents/documents.sync.ts';

/** Moved assets are read back (for their events) this many at a time. */
const BATCH = 500;

export type AssetsMergeCounts = { assets: number };

/**
 * The assets area's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in one
 * transaction with the source and target client rows locked). Only `assets` names a client in this area:
 * notes, documents, maintenance, history, relationships and ticket links follow their asset.
 *
 * Every asset of the source moves to the target in one UPDATE; each emits `asset.updated` with the
 * `changes` a client change has in a single update (client_id, client_name) and `merge: true`; the assets'
 * search rows and those of their documents (a document's client comes from its assets) are re-synced.
 */
export function assetsMergeParticipant(deps: { publicUrl: string }): MergeParticipant {
  const { publicUrl } = deps;
  return {
    name: 'assets',

    async count(db: Executor, ctx: MergeContext): Promise<AssetsMergeCounts> {
      const row = await db
        .selectFrom('assets')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('tenant', '=', ctx.tenant)
        .where('client_id', '=', ctx.sourceId)
        .executeTakeFirstOrThrow();
      return { assets: Number(row.n) };
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<AssetsMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const moved = await trx
        .updateTable('assets')
        .set({ client_id: targetId, updated_at: sql<Date>`now()` })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('asset_id')
        .execute();
      const ids = moved.map((r) => r.asset_id);
      if (ids.length === 0) return { assets: 0 };

      await syncSearch(trx, tenant, 'asset', ids);
      const { rows: documents } = await sql<{ id: string }>`
        select distinct document_id as id from asset_documents where tenant = ${tenant} and asset_id = any(${ids}::uuid[])
      `.execute(trx);
      await syncDocuments(trx, tenant, documents.map((r) => r.id));

      const sourceName = (await findClientRow(trx, tenant, sourceId))?.client_name ?? null;
      for (let i = 0; i < ids.length; i += BATCH) {
        const rows = await findAssetViews(trx, tenant, ids.slice(i, i + BATCH));
        rows.sort((a, b) => (a.asset_id < b.asset_id ? -1 : 1));
        for (const row of rows) {
          const changes = { client_id: { previous: sourceId, new: targetId }, client_name: { previous: sourceName, new: row.client_name } };
          await emitAssetEvent(trx, row, publicUrl, ASSET_EVENTS.updated, { changes, merge: true });
        }
      }
      return { assets: ids.length };
    },
  };
}
