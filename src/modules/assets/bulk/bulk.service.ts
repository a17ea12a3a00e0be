import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, validation } from '../../../platform/http/errors.ts';
import { canSeeClient } from '../../clients/index.ts';
import { toAsset } from '../assets.mapper.ts';
import type { AssetViewRow } from '../assets.repo.ts';
import type { Asset, UpdateAssetBody } from '../assets.schemas.ts';
import { updateAssetIn } from '../assets.writes.ts';
import type { BulkStatusBody, BulkUpdateBody } from './bulk.schemas.ts';

/**
 * Bulk changes run in one transaction: every asset is locked (in id order, so concurrent bulks cannot
 * deadlock) and checked before anything is written; a missing or invisible id is a 404 naming all of
 * them, any invalid entry a 400 naming it, and either way nothing changes. Each changed asset emits
 * the same asset.updated as a single update.
 */
export function createBulkService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  const apply = (actor: Actor, updates: { asset_id: string; data: UpdateAssetBody; path: string }[]) =>
    withTransaction(db, async (trx) => {
      const ids = updates.map((u) => u.asset_id);
      const rows = await trx
        .selectFrom('assets as a')
        .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'a.tenant').onRef('c.client_id', '=', 'a.client_id'))
        .where('a.tenant', '=', actor.tenant)
        .where('a.asset_id', 'in', ids)
        .selectAll('a')
        .select('c.client_name')
        .orderBy('a.asset_id')
        .forUpdate('a')
        .execute();
      const byId = new Map<string, AssetViewRow>(rows.filter((r) => canSeeClient(actor, r.client_id)).map((r) => [r.asset_id, r]));
      const missing = ids.filter((id) => !byId.has(id));
      if (missing.length > 0) {
        throw new AppError('NOT_FOUND', `Asset(s) not found: ${missing.join(', ')}; nothing was changed`, { missing_asset_ids: missing });
      }
      const out: Asset[] = [];
      let updated = 0;
      for (const u of updates) {
        const current = byId.get(u.asset_id)!;
        const after = await updateAssetIn(trx, actor, current, u.data, publicUrl, u.path);
        if (after !== current) updated++;
        out.push(toAsset(after));
      }
      return { data: out, meta: { updated } };
    });

  return {
    setStatus: (actor: Actor, body: BulkStatusBody) =>
      apply(actor, body.asset_ids.map((id, i) => ({ asset_id: id, data: { status: body.status }, path: `body.asset_ids[${i}]` }))),

    update(actor: Actor, body: BulkUpdateBody) {
      const seen = new Set<string>();
      body.assets.forEach((a, i) => {
        if (seen.has(a.asset_id)) throw validation(`body.assets[${i}].asset_id`, `asset '${a.asset_id}' appears more than once`);
        seen.add(a.asset_id);
      });
      return apply(actor, body.assets.map((a, i) => ({ asset_id: a.asset_id, data: a.data, path: `body.assets[${i}].data` })));
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
