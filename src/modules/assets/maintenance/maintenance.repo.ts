import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { AssetMaintenanceSchedulesTable } from '../../../platform/db/schema.assets.ts';
import { defineList } from '../../../platform/http/list.ts';

export type ScheduleRow = Selectable<AssetMaintenanceSchedulesTable>;

export async function findSchedule(db: Executor, tenant: string, scheduleId: string, lock = false): Promise<ScheduleRow | undefined> {
  let q = db.selectFrom('asset_maintenance_schedules').selectAll().where('tenant', '=', tenant).where('schedule_id', '=', scheduleId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertSchedule(db: Executor, row: Insertable<AssetMaintenanceSchedulesTable>): Promise<ScheduleRow> {
  return db.insertInto('asset_maintenance_schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateSchedule(db: Executor, tenant: string, scheduleId: string, set: Updateable<AssetMaintenanceSchedulesTable>): Promise<ScheduleRow> {
  return db.updateTable('asset_maintenance_schedules').set(set).where('tenant', '=', tenant).where('schedule_id', '=', scheduleId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteSchedule(db: Executor, tenant: string, scheduleId: string): Promise<void> {
  await db.deleteFrom('asset_maintenance_schedules').where('tenant', '=', tenant).where('schedule_id', '=', scheduleId).execute();
}

export interface ScheduleFilter {
  isActive?: boolean;
  isOverdue?: boolean;
  today: string;
}

/** The asset's schedules, soonest due first by default; ties break on schedule_id in the requested direction. */
export function scheduleList(db: Executor, tenant: string, assetId: string, f: ScheduleFilter) {
  let q = db.selectFrom('asset_maintenance_schedules as s').where('s.tenant', '=', tenant).where('s.asset_id', '=', assetId);
  if (f.isActive !== undefined) q = q.where('s.is_active', '=', f.isActive);
  if (f.isOverdue === true) q = q.where('s.is_active', '=', true).where('s.next_due', '<', f.today);
  if (f.isOverdue === false) q = q.where((eb) => eb.or([eb('s.is_active', '=', false), eb('s.next_due', '>=', f.today)]));
  return defineList({
    from: q,
    page: q.selectAll('s'),
    sorts: { next_due: ['s.next_due'], schedule_name: [sql`lower(s.schedule_name)`], created_at: ['s.created_at'] },
    defaultSort: 'next_due',
    defaultOrder: 'asc',
    tieBreaker: 's.schedule_id',
    updatedAt: 's.updated_at',
  });
}

/** Overdue active schedules and the earliest next_due among active ones (summary). */
export async function maintenanceOutlook(db: Executor, tenant: string, assetId: string, today: string): Promise<{ overdue: number; nextDue: string | null }> {
  const r = await db
    .selectFrom('asset_maintenance_schedules')
    .where('tenant', '=', tenant)
    .where('asset_id', '=', assetId)
    .where('is_active', '=', true)
    .select((eb) => [
      eb.fn.count<number>(sql`case when next_due < ${today} then 1 end`).as('overdue'),
      eb.fn.min<string | null>('next_due').as('next_due'),
    ])
    .executeTakeFirstOrThrow();
  return { overdue: Number(r.overdue), nextDue: r.next_due ?? null };
}
