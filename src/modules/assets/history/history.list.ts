import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { defineList } from '../../../platform/http/list.ts';
import type { HistoryRow } from './history.repo.ts';

export interface HistoryViewRow extends HistoryRow {
  schedule_name: string | null;
  performed_by_name: string | null;
}

const COLUMNS = [
  'h.tenant', 'h.history_id', 'h.asset_id', 'h.entry_type', 'h.schedule_id', 'h.maintenance_type', 'h.command', 'h.description',
  'h.performed_at', 'h.performed_by', 'h.details', 'h.created_at',
] as const;

function historyView(db: Executor, tenant: string) {
  return db
    .selectFrom('asset_history as h')
    .leftJoin('asset_maintenance_schedules as s', (j) => j.onRef('s.tenant', '=', 'h.tenant').onRef('s.schedule_id', '=', 'h.schedule_id'))
    .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'h.tenant').onRef('u.user_id', '=', 'h.performed_by'))
    .where('h.tenant', '=', tenant)
    .select(COLUMNS)
    .select([
      's.schedule_name',
      sql<string | null>`coalesce(nullif(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.username)`.as('performed_by_name'),
    ]);
}

export async function findHistoryEntry(db: Executor, tenant: string, historyId: string): Promise<HistoryViewRow | undefined> {
  return historyView(db, tenant).where('h.history_id', '=', historyId).executeTakeFirst();
}

/** The asset's timeline, newest first (the query takes no sort or order); ties break on history_id. */
export function historyList(db: Executor, tenant: string, assetId: string, entryType: 'maintenance' | 'rmm_command' | undefined) {
  let base = db.selectFrom('asset_history as h').where('h.tenant', '=', tenant).where('h.asset_id', '=', assetId);
  if (entryType) base = base.where('h.entry_type', '=', entryType);
  let q = historyView(db, tenant).where('h.asset_id', '=', assetId);
  if (entryType) q = q.where('h.entry_type', '=', entryType);
  return defineList({
    from: base,
    page: q,
    sorts: { performed_at: ['h.performed_at'] },
    defaultSort: 'performed_at',
    defaultOrder: 'desc',
    tieBreaker: 'h.history_id',
    // History entries are never edited: when an entry was written is when it last changed.
    updatedAt: 'h.created_at',
  });
}
