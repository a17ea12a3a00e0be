import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { LedgerEntityType, LedgerOperation, LedgerRunStatus, LedgerSyncStatus } from '../../../platform/db/schema.ledger.ts';

export interface HealthConfigRow {
  config: Record<string, unknown>;
  updated_by: string | null;
  updated_at: Date;
}

export function findHealthConfig(db: Executor, tenant: string, lock = false): Promise<HealthConfigRow | undefined> {
  let q = db.selectFrom('ledger_health_config').select(['config', 'updated_by', 'updated_at']).where('tenant', '=', tenant);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function saveHealthConfig(db: Executor, tenant: string, config: object, updatedBy: string | null): Promise<void> {
  const now = new Date();
  const json = JSON.stringify(config);
  await db
    .insertInto('ledger_health_config')
    .values({ tenant, config: json, updated_by: updatedBy, updated_at: now })
    .onConflict((oc) => oc.column('tenant').doUpdateSet({ config: json, updated_by: updatedBy, updated_at: now }))
    .execute();
}

export interface RunSummary {
  sync_id: string;
  operation_type: LedgerOperation;
  status: LedgerRunStatus;
  started_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  error_message: string | null;
}

/** When a run counts as having happened: when it finished, or when it was created while it has not. */
const happenedAt = sql<Date>`coalesce(completed_at, created_at)`;

/** Top-level runs (a bulk or full run once, without its operations) that happened at or after `since`, newest first. */
export function topLevelRunsSince(db: Executor, tenant: string, connectionId: string, since: Date, limit = 5000): Promise<RunSummary[]> {
  return db
    .selectFrom('ledger_sync_runs')
    .select(['sync_id', 'operation_type', 'status', 'started_at', 'completed_at', 'created_at', 'error_message'])
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('parent_sync_id', 'is', null)
    .where(happenedAt, '>=', since)
    .orderBy(happenedAt, 'desc')
    .orderBy('sync_id', 'desc')
    .limit(limit)
    .execute();
}

/** When the latest top-level run finished (completed, partial or failed), at any time. */
export async function lastFinishedAt(db: Executor, tenant: string, connectionId: string): Promise<Date | null> {
  const row = await db
    .selectFrom('ledger_sync_runs')
    .select(happenedAt.as('at'))
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('parent_sync_id', 'is', null)
    .where('status', 'in', ['completed', 'partial', 'failed'])
    .orderBy(happenedAt, 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? new Date(row.at) : null;
}

/** The latest failed or partial top-level runs. */
export function recentFailures(db: Executor, tenant: string, connectionId: string, limit: number): Promise<RunSummary[]> {
  return db
    .selectFrom('ledger_sync_runs')
    .select(['sync_id', 'operation_type', 'status', 'started_at', 'completed_at', 'created_at', 'error_message'])
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .where('parent_sync_id', 'is', null)
    .where('status', 'in', ['failed', 'partial'])
    .orderBy(happenedAt, 'desc')
    .orderBy('sync_id', 'desc')
    .limit(limit)
    .execute();
}

export interface MappingCount {
  entity_type: LedgerEntityType;
  sync_status: LedgerSyncStatus;
  n: number;
}

/** How many mappings the company has, by entity type and sync status. */
export async function mappingCounts(db: Executor, tenant: string, connectionId: string): Promise<MappingCount[]> {
  const rows = await db
    .selectFrom('ledger_mappings')
    .select(['entity_type', 'sync_status', (eb) => eb.fn.countAll().as('n')])
    .where('tenant', '=', tenant)
    .where('connection_id', '=', connectionId)
    .groupBy(['entity_type', 'sync_status'])
    .orderBy('entity_type')
    .orderBy('sync_status')
    .execute();
  return rows.map((r) => ({ entity_type: r.entity_type, sync_status: r.sync_status, n: Number(r.n) }));
}
