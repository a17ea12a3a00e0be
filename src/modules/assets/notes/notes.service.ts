import { iso } from '../../../platform/time.ts';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { isPortalActor } from '../../clients/index.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { requireVisibleAsset, type AssetRow } from '../assets.access.ts';
import { emitAssetUpdated } from '../assets.events.ts';
import { updateAsset } from '../assets.repo.ts';
import { viewOf } from '../assets.writes.ts';
import type { AssetNotes } from './notes.schemas.ts';

const toNotes = (row: Pick<AssetRow, 'notes' | 'notes_updated_at'>): AssetNotes => ({
  notes: row.notes,
  updated_at: iso(row.notes_updated_at),
});

/** Internal notes about an asset, in markdown. Client-portal keys never see them (403). */
export function createAssetNotesService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  const assertInternal = (actor: Actor) => {
    if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Asset notes are internal; client-portal keys cannot use them');
  };

  const write = (actor: Actor, assetId: string, notes: string | null, ifMatch: string | undefined) => {
    assertInternal(actor);
    return withTransaction(db, async (trx) => {
      const row = await requireVisibleAsset(trx, actor, assetId, 'update');
      assertIfMatch(ifMatch, toNotes(row));
      if (row.notes === notes) return toNotes(row);
      const now = new Date();
      await updateAsset(trx, actor.tenant, assetId, { notes, notes_updated_at: now });
      await emitAssetUpdated(trx, await viewOf(trx, actor.tenant, assetId), publicUrl, {
        notes_updated_at: { previous: iso(row.notes_updated_at), new: iso(now) },
      });
      await syncSearch(trx, actor.tenant, 'asset', [assetId]);
      return toNotes({ notes, notes_updated_at: now });
    });
  };

  return {
    async get(actor: Actor, assetId: string): Promise<AssetNotes> {
      assertInternal(actor);
      return toNotes(await requireVisibleAsset(db, actor, assetId));
    },
    put: (actor: Actor, assetId: string, notes: string, ifMatch?: string) => write(actor, assetId, notes, ifMatch),
    async clear(actor: Actor, assetId: string, ifMatch?: string): Promise<void> {
      await write(actor, assetId, null, ifMatch);
    },
  };
}

export type AssetNotesService = ReturnType<typeof createAssetNotesService>;
