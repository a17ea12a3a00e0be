import type { Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { AssetHistoryTable } from '../../../platform/db/schema.assets.ts';
import { newId } from '../../../platform/ids.ts';

export type HistoryRow = Selectable<AssetHistoryTable>;

export interface HistoryEntry {
  asset_id: string;
  entry_type: 'maintenance' | 'rmm_command';
  schedule_id?: string | null;
  maintenance_type?: string | null;
  command?: string | null;
  description?: string | null;
  performed_at?: Date | string;
  performed_by?: string | null;
  details?: Record<string, unknown>;
}

/** Appends one entry to an asset's timeline; callers check the asset's visibility first. */
export async function recordAssetHistory(db: Executor, tenant: string, entry: HistoryEntry): Promise<HistoryRow> {
  return db
    .insertInto('asset_history')
    .values({
      tenant,
      history_id: newId(),
      asset_id: entry.asset_id,
      entry_type: entry.entry_type,
      schedule_id: entry.schedule_id ?? null,
      maintenance_type: entry.maintenance_type ?? null,
      command: entry.command ?? null,
      description: entry.description ?? null,
      performed_at: entry.performed_at ?? new Date(),
      performed_by: entry.performed_by ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
