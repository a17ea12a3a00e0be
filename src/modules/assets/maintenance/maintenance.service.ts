import { iso } from '../../../platform/time.ts';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { requireVisibleAsset } from '../assets.access.ts';
import { ASSET_EVENTS, emitAssetEvent } from '../assets.events.ts';
import { todayUtc } from '../assets.warranty.ts';
import { viewOf } from '../assets.writes.ts';
import { findHistoryEntry, historyList, type HistoryViewRow } from '../history/history.list.ts';
import { recordAssetHistory } from '../history/history.repo.ts';
import { nextOccurrence } from './maintenance.dates.ts';
import { deleteSchedule, findSchedule, insertSchedule, scheduleList, updateSchedule, type ScheduleRow } from './maintenance.repo.ts';
import type {
  CreateScheduleBody,
  HistoryEntry,
  ListHistoryQuery,
  ListSchedulesQuery,
  RecordMaintenanceBody,
  Schedule,
  UpdateScheduleBody,
} from './maintenance.schemas.ts';

export function toSchedule(row: ScheduleRow, today = todayUtc()): Schedule {
  return {
    schedule_id: row.schedule_id,
    asset_id: row.asset_id,
    schedule_name: row.schedule_name,
    description: row.description,
    maintenance_type: row.maintenance_type,
    frequency: row.frequency,
    frequency_interval: row.frequency_interval,
    start_date: row.start_date,
    next_due: row.next_due,
    is_overdue: row.is_active && row.next_due < today,
    last_performed_at: iso(row.last_performed_at),
    is_active: row.is_active,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toHistoryEntry(row: HistoryViewRow): HistoryEntry {
  return {
    history_id: row.history_id,
    asset_id: row.asset_id,
    entry_type: row.entry_type,
    schedule_id: row.schedule_id,
    schedule_name: row.schedule_name,
    maintenance_type: row.maintenance_type,
    command: row.command,
    description: row.description,
    performed_at: iso(row.performed_at),
    performed_by: row.performed_by,
    performed_by_name: row.performed_by_name,
    details: row.details,
    created_at: iso(row.created_at),
  };
}

const dateOf = (d: Date | null): string | null => (d ? d.toISOString().slice(0, 10) : null);

export function createMaintenanceService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  /** The schedule if its asset is visible to the actor; otherwise 404 (never 403). */
  const visibleSchedule = async (executor: Executor, actor: Actor, scheduleId: string, lock = false) => {
    const row = await findSchedule(executor, actor.tenant, scheduleId, lock);
    if (!row) throw notFound('Maintenance schedule', scheduleId);
    try {
      await requireVisibleAsset(executor, actor, row.asset_id);
    } catch {
      throw notFound('Maintenance schedule', scheduleId);
    }
    return row;
  };

  return {
    async list(actor: Actor, assetId: string, query: ListSchedulesQuery) {
      await requireVisibleAsset(db, actor, assetId);
      const today = todayUtc();
      const filter = { isActive: query.is_active, isOverdue: query.is_overdue, today };
      return listPage(query, scheduleList(db, actor.tenant, assetId, filter), (rows) => rows.map((r) => toSchedule(r, today)));
    },

    async create(actor: Actor, assetId: string, body: CreateScheduleBody): Promise<Schedule> {
      const name = requiredText(body.schedule_name, 'body.schedule_name');
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        const now = new Date();
        const row = await insertSchedule(trx, {
          tenant: actor.tenant,
          schedule_id: newId(),
          asset_id: assetId,
          schedule_name: name,
          description: optionalText(body.description) ?? null,
          maintenance_type: body.maintenance_type,
          frequency: body.frequency,
          frequency_interval: body.frequency_interval ?? 1,
          start_date: body.start_date,
          next_due: body.start_date,
          last_performed_at: null,
          is_active: body.is_active ?? true,
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
        });
        const schedule = toSchedule(row);
        await emitAssetEvent(trx, await viewOf(trx, actor.tenant, assetId), publicUrl, ASSET_EVENTS.maintenanceScheduled, { schedule });
        return schedule;
      });
    },

    async update(actor: Actor, scheduleId: string, body: UpdateScheduleBody, ifMatch?: string): Promise<Schedule> {
      return withTransaction(db, async (trx) => {
        const current = await visibleSchedule(trx, actor, scheduleId, true);
        assertIfMatch(ifMatch, toSchedule(current));
        const next = {
          schedule_name: body.schedule_name === undefined ? current.schedule_name : requiredText(body.schedule_name, 'body.schedule_name'),
          description: body.description === undefined ? current.description : (optionalText(body.description) ?? null),
          maintenance_type: body.maintenance_type ?? current.maintenance_type,
          frequency: body.frequency ?? current.frequency,
          frequency_interval: body.frequency_interval ?? current.frequency_interval,
          start_date: body.start_date ?? current.start_date,
          is_active: body.is_active ?? current.is_active,
        };
        const cadenceChanged = next.frequency !== current.frequency || next.frequency_interval !== current.frequency_interval || next.start_date !== current.start_date;
        const nextDue = cadenceChanged ? nextOccurrence(next.start_date, next.frequency, next.frequency_interval, dateOf(current.last_performed_at)) : current.next_due;
        const row = await updateSchedule(trx, actor.tenant, scheduleId, { ...next, next_due: nextDue, updated_at: new Date() });
        return toSchedule(row);
      });
    },

    /** Removes the schedule; history entries recorded against it stay (with its id, no longer resolvable to a name). */
    async remove(actor: Actor, scheduleId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await visibleSchedule(trx, actor, scheduleId, true);
        assertIfMatch(ifMatch, toSchedule(current));
        await deleteSchedule(trx, actor.tenant, scheduleId);
      });
    },

    /** Logs work done; with a schedule, its next_due moves to the first occurrence after the work. */
    async record(actor: Actor, assetId: string, body: RecordMaintenanceBody): Promise<{ entry: HistoryEntry; schedule: Schedule | null }> {
      const performedAt = body.performed_at ? new Date(body.performed_at) : new Date();
      if (performedAt.getTime() > Date.now() + 60_000) throw validation('body.performed_at', 'maintenance cannot be recorded for the future');
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        let schedule: ScheduleRow | undefined;
        if (body.schedule_id !== undefined) {
          schedule = await findSchedule(trx, actor.tenant, body.schedule_id, true);
          if (!schedule || schedule.asset_id !== assetId) throw validation('body.schedule_id', `asset '${assetId}' has no maintenance schedule '${body.schedule_id}'`);
        }
        const maintenanceType = body.maintenance_type ?? schedule?.maintenance_type;
        if (!maintenanceType) throw validation('body.maintenance_type', 'required when no schedule_id is given');
        const performedBy = body.performed_by ?? actor.userId;
        if (body.performed_by !== undefined) {
          const user = await trx.selectFrom('users').select('user_id').where('tenant', '=', actor.tenant).where('user_id', '=', body.performed_by).where('user_type', '=', 'internal').executeTakeFirst();
          if (!user) throw validation('body.performed_by', `no internal user '${body.performed_by}'`);
        }
        const details: Record<string, unknown> = {};
        if (body.duration_minutes !== undefined) details.duration_minutes = body.duration_minutes;
        if (body.cost_cents !== undefined) details.cost_cents = body.cost_cents;
        const recorded = await recordAssetHistory(trx, actor.tenant, {
          asset_id: assetId,
          entry_type: 'maintenance',
          schedule_id: schedule?.schedule_id ?? null,
          maintenance_type: maintenanceType,
          description: optionalText(body.description) ?? `${maintenanceType} maintenance performed`,
          performed_at: performedAt,
          performed_by: performedBy,
          details,
        });
        let updated: Schedule | null = null;
        if (schedule) {
          const done = dateOf(performedAt)!;
          const last = schedule.last_performed_at && schedule.last_performed_at > performedAt ? schedule.last_performed_at : performedAt;
          const nextDue = nextOccurrence(schedule.start_date, schedule.frequency, schedule.frequency_interval, done > schedule.next_due ? done : schedule.next_due);
          updated = toSchedule(await updateSchedule(trx, actor.tenant, schedule.schedule_id, { next_due: nextDue, last_performed_at: last, updated_at: new Date() }));
        }
        const entry = toHistoryEntry((await findHistoryEntry(trx, actor.tenant, recorded.history_id))!);
        await emitAssetEvent(trx, await viewOf(trx, actor.tenant, assetId), publicUrl, ASSET_EVENTS.maintenanceCompleted, { maintenance: entry });
        return { entry, schedule: updated };
      });
    },

    async history(actor: Actor, assetId: string, query: ListHistoryQuery) {
      await requireVisibleAsset(db, actor, assetId);
      return listPage(query, historyList(db, actor.tenant, assetId, query.entry_type), (rows) => rows.map(toHistoryEntry));
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
