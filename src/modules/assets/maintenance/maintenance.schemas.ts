import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import type { MaintenanceFrequency, MaintenanceType } from '../../../platform/db/schema.assets.ts';

export const MAINTENANCE_TYPES: readonly MaintenanceType[] = ['preventive', 'inspection', 'calibration', 'replacement', 'corrective'];
export const FREQUENCIES: readonly MaintenanceFrequency[] = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly', 'custom'];

const MaintenanceTypeSchema = Type.Enum([...MAINTENANCE_TYPES]);
const FrequencySchema = Type.Enum([...FREQUENCIES], { description: 'custom repeats every frequency_interval days' });

export const Schedule = Type.Object({
  schedule_id: Id,
  asset_id: Id,
  schedule_name: Type.String(),
  description: Nullable(Type.String()),
  maintenance_type: MaintenanceTypeSchema,
  frequency: FrequencySchema,
  frequency_interval: Type.Integer({ description: 'Every N periods (days for custom)' }),
  start_date: DateOnly,
  next_due: DateOnly,
  is_overdue: Type.Boolean({ description: 'Active and next_due before today' }),
  last_performed_at: Nullable(Timestamp),
  is_active: Type.Boolean(),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Schedule = Static<typeof Schedule>;

const fields = {
  schedule_name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 2000 })),
  maintenance_type: MaintenanceTypeSchema,
  frequency: FrequencySchema,
  frequency_interval: Type.Integer({ minimum: 1, maximum: 3650, default: 1 }),
  start_date: DateOnly,
  is_active: Type.Boolean(),
};

export const CreateScheduleBody = Type.Object(
  {
    schedule_name: fields.schedule_name,
    maintenance_type: fields.maintenance_type,
    frequency: fields.frequency,
    start_date: fields.start_date,
    frequency_interval: Type.Optional(fields.frequency_interval),
    description: Type.Optional(fields.description),
    is_active: Type.Optional(fields.is_active),
  },
  { additionalProperties: false, description: 'next_due is computed: the first occurrence is start_date' },
);
export type CreateScheduleBody = Static<typeof CreateScheduleBody>;

export const UpdateScheduleBody = Type.Object(
  {
    schedule_name: Type.Optional(fields.schedule_name),
    maintenance_type: Type.Optional(fields.maintenance_type),
    frequency: Type.Optional(fields.frequency),
    start_date: Type.Optional(fields.start_date),
    frequency_interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    description: Type.Optional(fields.description),
    is_active: Type.Optional(fields.is_active),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial; changing start_date, frequency or frequency_interval recomputes next_due' },
);
export type UpdateScheduleBody = Static<typeof UpdateScheduleBody>;

export const ScheduleParams = Type.Object({ scheduleId: Id }, { additionalProperties: false });

export const SCHEDULE_SORT_FIELDS = ['next_due', 'schedule_name', 'created_at'] as const;
export const ListSchedulesQuery = listQuery(SCHEDULE_SORT_FIELDS, {
  is_active: Type.Optional(Type.Boolean()),
  is_overdue: Type.Optional(Type.Boolean()),
});
export type ListSchedulesQuery = Static<typeof ListSchedulesQuery>;

export const RecordMaintenanceBody = Type.Object(
  {
    schedule_id: Type.Optional(Id),
    maintenance_type: Type.Optional(MaintenanceTypeSchema),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    performed_at: Type.Optional(Timestamp),
    performed_by: Type.Optional(Id),
    duration_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    cost_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_000 })),
  },
  {
    additionalProperties: false,
    description: 'maintenance_type defaults to the schedule\'s (required without schedule_id); performed_at defaults to now and may not be in the future; performed_by defaults to the caller',
  },
);
export type RecordMaintenanceBody = Static<typeof RecordMaintenanceBody>;

export const HistoryEntry = Type.Object({
  history_id: Id,
  asset_id: Id,
  entry_type: Type.Enum(['maintenance', 'rmm_command']),
  schedule_id: Nullable(Id),
  schedule_name: Nullable(Type.String()),
  maintenance_type: Nullable(Type.String()),
  command: Nullable(Type.String()),
  description: Nullable(Type.String()),
  performed_at: Timestamp,
  performed_by: Nullable(Id),
  performed_by_name: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});
export type HistoryEntry = Static<typeof HistoryEntry>;

export const RecordedMaintenance = Type.Object({ entry: HistoryEntry, schedule: Nullable(Schedule) });

export const ListHistoryQuery = listQuery(['performed_at'] as const, {
  entry_type: Type.Optional(Type.Enum(['maintenance', 'rmm_command'])),
});
export type ListHistoryQuery = Static<typeof ListHistoryQuery>;

export const ScheduleResponse = dataOf(Schedule);
export const ScheduleListResponse = listOf(Schedule);
export const RecordedMaintenanceResponse = dataOf(RecordedMaintenance);
export const HistoryListResponse = listOf(HistoryEntry);
