import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { notFound } from '../../platform/http/errors.ts';
import { keptListPage } from '../../platform/http/list.ts';
import { canSeeClient, portalClientId } from '../clients/index.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { emitAssetDeleted } from './assets.events.ts';
import { toAsset } from './assets.mapper.ts';
import { assetList, deleteAsset, findAssetView, type AssetFilter, type AssetViewRow } from './assets.repo.ts';
import type { Asset, CreateAssetBody, ListAssetsQuery, UpdateAssetBody } from './assets.schemas.ts';
import { createAssetIn, updateAssetIn } from './assets.writes.ts';
import { todayUtc } from './assets.warranty.ts';
import { documentIdsOfAsset, syncDocuments } from './documents/documents.sync.ts';
import type { Executor } from '../../platform/db/executor.ts';

type FilterQuery = Pick<ListAssetsQuery, 'client_id' | 'asset_type' | 'status' | 'warranty_status' | 'search' | 'updated_since'>;

/** The list/export/stats filter of a query, scoped to the portal actor's client. */
export function assetFilterOf(actor: Actor, q: FilterQuery): AssetFilter {
  return {
    onlyClientId: portalClientId(actor),
    clientId: q.client_id,
    assetType: q.asset_type,
    status: q.status,
    warrantyStatus: q.warranty_status,
    search: q.search?.trim() || undefined,
    updatedSince: q.updated_since ? new Date(q.updated_since) : undefined,
  };
}

/** The asset (with its client's name) if the actor may see it; otherwise 404. */
export async function requireAssetView(db: Executor, actor: Actor, assetId: string, lock = false): Promise<AssetViewRow> {
  const row = await findAssetView(db, actor.tenant, assetId, lock);
  if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Asset', assetId);
  return row;
}

/**
 * PUT /api/v1/assets/{id} inside the caller's transaction: the asset under its lock (404 unless the actor
 * may see it), If-Match, then the partial update with its checks, event and index entry.
 */
export async function updateAssetInTrx(trx: Transaction<DB>, actor: Actor, id: string, body: UpdateAssetBody, ctx: { publicUrl: string; ifMatch?: string }): Promise<Asset> {
  const current = await requireAssetView(trx, actor, id, true);
  assertIfMatch(ctx.ifMatch, toAsset(current));
  return toAsset(await updateAssetIn(trx, actor, current, body, ctx.publicUrl));
}

export function createAssetsService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;
  return {
    async list(actor: Actor, query: ListAssetsQuery) {
      // The day both dates the warranty filter and shows each row's warranty status.
      const today = todayUtc();
      const input = { tenant: actor.tenant, filter: { ...assetFilterOf(actor, query), today } };
      return keptListPage(db, query, `assets@${today}`, input, (i) => assetList(db, i.tenant, i.filter), (rows) => rows.map((r) => toAsset(r, today)));
    },

    async get(actor: Actor, id: string): Promise<Asset> {
      return toAsset(await requireAssetView(db, actor, id));
    },

    async create(actor: Actor, body: CreateAssetBody): Promise<Asset> {
      return withTransaction(db, async (trx) => toAsset(await createAssetIn(trx, actor, body, publicUrl)));
    },

    async update(actor: Actor, id: string, body: UpdateAssetBody, ifMatch?: string): Promise<Asset> {
      return withTransaction(db, (trx) => updateAssetInTrx(trx, actor, id, body, { publicUrl, ifMatch }));
    },

    /**
     * Hard delete. Nothing blocks it: the asset's history, maintenance schedules, relationships, ticket
     * links, document links and RMM link go with it (FK cascades); linked tickets and the documents
     * themselves stay.
     */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await requireAssetView(trx, actor, id, true);
        assertIfMatch(ifMatch, toAsset(current));
        const documents = await documentIdsOfAsset(trx, actor.tenant, id);
        await deleteAsset(trx, actor.tenant, id);
        await emitAssetDeleted(trx, current);
        await syncSearch(trx, actor.tenant, 'asset', [id]);
        await syncDocuments(trx, actor.tenant, documents);
      });
    },
  };
}

export type AssetsService = ReturnType<typeof createAssetsService>;
