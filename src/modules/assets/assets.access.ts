import type { Selectable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import type { AssetsTable } from '../../platform/db/schema.assets.ts';
import { notFound } from '../../platform/http/errors.ts';
import { canSeeClient } from '../clients/index.ts';

export type AssetRow = Selectable<AssetsTable>;
export type AssetLock = 'none' | 'share' | 'update';

export async function findAssetRow(db: Executor, tenant: string, assetId: string, lock: AssetLock = 'none'): Promise<AssetRow | undefined> {
  let q = db.selectFrom('assets').selectAll().where('tenant', '=', tenant).where('asset_id', '=', assetId);
  if (lock === 'share') q = q.forShare();
  if (lock === 'update') q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * The asset row if it is in the actor's tenant and the actor may see it (portal keys: only their
 * client's assets); otherwise 404, never 403, so ids of other tenants and clients reveal nothing.
 */
export async function requireVisibleAsset(db: Executor, actor: Actor, assetId: string, lock: AssetLock = 'none'): Promise<AssetRow> {
  const row = await findAssetRow(db, actor.tenant, assetId, lock);
  if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Asset', assetId);
  return row;
}
