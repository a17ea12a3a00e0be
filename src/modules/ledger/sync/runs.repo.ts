import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { LedgerOperation, LedgerRunStatus, LedgerSyncOutcomesTable, LedgerSyncRunsTable } from '../../../platform/db/schema.ledger.ts';
import { defineList } from '../../../platform/http/list.ts';

export type RunRow = Selectable<LedgerSyncRunsTable>;
export type OutcomeRow = Selectable<LedgerSyncOutcomesTable>;

export function findRun(db: Executor, tenant: string, syncId: string, lock = false): Promise<RunRow | undefined> {
  let q = db.selectFrom('ledger_sync_runs').selectAll().where('tenant', '=', tenant).where('sync_id', '=', syncId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertRun(db: Executor, row: Insertable<LedgerSyncRunsTable>): Promise<void> {
  await db.insertInto('ledger_sync_runs').values(row).execute();
}

export async function updateRun(db: Executor, tenant: string, syncId: string, set: Updateable<LedgerSyncRunsTable>): Promise<void> {
  await db.updateTable('ledger_sync_runs').set({ ...set, updated_at: new Date() }).where('tenant', '=', tenant).where('sync_id', '=', syncId).execute();
}

export async function cancelRequested(db: Executor, tenant: string, syncId: string): Promise<boolean> {
  const row = await db.selectFrom('ledger_sync_runs').select('cancel_requested').where('tenant', '=', tenant).where('sync_id', '=', syncId).executeTakeFirst();
  return row?.cancel_requested ?? true;
}

export async function insertOutcomes(db: Executor, rows: Insertable<LedgerSyncOutcomesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('ledger_sync_outcomes').values(rows).execute();
}

/** A run's outcomes in the order they happened (bounded: the detail view shows the first `limit`). */
export function outcomesOf(db: Executor, tenant: string, syncId: string, limit: number): Promise<OutcomeRow[]> {
  return db.selectFrom('ledger_sync_outcomes').selectAll().where('tenant', '=', tenant).where('sync_id', '=', syncId).orderBy('created_at').orderBy('outcome_id').limit(limit).execute();
}

export function childRuns(db: Executor, tenant: string, parentId: string): Promise<RunRow[]> {
  return db.selectFrom('ledger_sync_runs').selectAll().where('tenant', '=', tenant).where('parent_sync_id', '=', parentId).orderBy('created_at').orderBy('sync_id').execute();
}

export interface RunListFilter {
  connectionId: string;
  operationType?: LedgerOperation;
  status?: LedgerRunStatus | readonly LedgerRunStatus[];
  from?: Date;
  to?: Date;
}

/** Newest first by default; a bulk run's children are listed with it, not on their own. */
export function runList(db: Executor, tenant: string, f: RunListFilter) {
  let q = db.selectFrom('ledger_sync_runs as r').where('r.tenant', '=', tenant).where('r.connection_id', '=', f.connectionId).where('r.parent_sync_id', 'is', null);
  if (f.operationType) q = q.where('r.operation_type', '=', f.operationType);
  if (typeof f.status === 'string') q = q.where('r.status', '=', f.status);
  else if (f.status) q = q.where('r.status', 'in', f.status);
  if (f.from) q = q.where('r.created_at', '>=', f.from);
  if (f.to) q = q.where('r.created_at', '<', f.to);
  return defineList({
    from: q,
    page: q.selectAll('r'),
    sorts: { created_at: ['r.created_at'], completed_at: [{ by: 'r.completed_at', nullsLast: true }] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'r.sync_id',
    updatedAt: 'r.updated_at',
  });
}

export async function latestRuns(db: Executor, tenant: string, connectionId: string, since: Date): Promise<RunRow[]> {
  return db.selectFrom('ledger_sync_runs').selectAll().where('tenant', '=', tenant).where('connection_id', '=', connectionId).where('created_at', '>=', since).orderBy('created_at', 'desc').limit(1000).execute();
}

/** When the last run of an operation that got through (completed or partial) started: the next one reads changes from there. */
export async function lastGoodRunStart(db: Executor, tenant: string, connectionId: string, op: LedgerOperation): Promise<Date | null> {
  const row = await db
    .selectFrom('ledger_sync_runs')
    .select('started_at')
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('operation_type', '=', op)
    .where('status', 'in', ['completed', 'partial'])
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.started_at ?? null;
}
