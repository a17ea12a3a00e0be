import type { Executor } from '../../../platform/db/executor.ts';
import { recordAssetHistory as insertHistory, type HistoryEntry, type HistoryRow } from './history.repo.ts';

/**
 * Appends one entry to an asset's timeline in the caller's transaction: maintenance performed here and
 * commands sent through RMM. Callers check the asset's visibility first.
 */
export function recordAssetHistory(db: Executor, tenant: string, entry: HistoryEntry): Promise<HistoryRow> {
  return insertHistory(db, tenant, entry);
}
