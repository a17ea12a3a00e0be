import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { HoursInput } from '../projects.schemas.ts';
import { TASK_SORTS } from './tasks.repo.ts';

export const Task = Type.Object({
  task_id: Id,
  project_id: Id,
  phase_id: Id,
  phase_name: Type.String(),
  task_name: Type.String(),
  description: Nullable(Type.String({ description: 'Markdown' })),
  status_mapping_id: Type.String({ format: 'uuid', description: 'The project\'s task status mapping (GET /api/v1/projects/{id}/task-status-mappings)' }),
  status_id: Type.String({ format: 'uuid', description: 'The tenant task status the mapping stands for' }),
  status_name: Type.String(),
  is_closed: Type.Boolean({ description: 'Whether the task sits in a closed (completing) status' }),
  is_completed: Type.Boolean(),
  completed_at: Nullable(Type.String({ format: 'date-time', description: 'When it moved to a closed status; cleared on reopening' })),
  assigned_to: Nullable(Id),
  assigned_to_name: Nullable(Type.String()),
  assigned_team_id: Nullable(Id),
  assigned_team_name: Nullable(Type.String()),
  estimated_hours: Nullable(Type.Number({ description: 'Hours' })),
  actual_hours: Type.Number({ description: 'Hours' }),
  due_date: Nullable(DateOnly),
  priority_id: Nullable(Id),
  priority_name: Nullable(Type.String()),
  position: Type.Integer({ description: '1-based order among the phase\'s tasks, without gaps' }),
  checklist_total: Type.Integer(),
  checklist_completed: Type.Integer(),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Task = Static<typeof Task>;

const uuidOrNull = (description: string) => Nullable(Type.String({ format: 'uuid', description }));
const fields = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 100_000, description: 'Markdown; blank means none' }))),
  status_mapping_id: Type.Optional(Type.String({ format: 'uuid', description: 'One of the project\'s task status mappings; default: the mapping of the tenant\'s default task status' })),
  assigned_to: Type.Optional(uuidOrNull('An active internal user')),
  assigned_team_id: Type.Optional(uuidOrNull('A team')),
  estimated_hours: Type.Optional(Nullable(HoursInput)),
  actual_hours: Type.Optional(HoursInput),
  due_date: Type.Optional(Nullable(Type.String({ format: 'date', maxLength: 10, description: 'YYYY-MM-DD' }))),
  priority_id: Type.Optional(uuidOrNull('A priority (GET /api/v1/priorities)')),
  position: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: '1-based place in the phase; later tasks move down one. Past the end means last' })),
};

export const CreateTaskBody = Type.Object(
  { task_name: Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; not blank' }), ...fields },
  { additionalProperties: false },
);
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const UpdateTaskBody = Type.Object(
  {
    task_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    phase_id: Type.Optional(Type.String({ format: 'uuid', description: 'Move to another phase of the same project (last unless position is sent)' })),
    ...fields,
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; fields equal to the current values change nothing' },
);
export type UpdateTaskBody = Static<typeof UpdateTaskBody>;

const taskFilters = {
  status_mapping_id: Type.Optional(Type.String({ format: 'uuid', description: 'Tasks in this status mapping' })),
  assigned_to: Type.Optional(Type.String({ format: 'uuid', description: 'Tasks assigned to this user' })),
  is_completed: Type.Optional(Type.Boolean()),
};
export const ListProjectTasksQuery = listQuery(TASK_SORTS, { phase_id: Type.Optional(Type.String({ format: 'uuid' })), ...taskFilters });
export type ListProjectTasksQuery = Static<typeof ListProjectTasksQuery>;
export const ListPhaseTasksQuery = listQuery(TASK_SORTS, taskFilters);
export type ListPhaseTasksQuery = Static<typeof ListPhaseTasksQuery>;

export const TaskParams = Type.Object({ taskId: Id }, { additionalProperties: false });
export const PhaseTasksParams = Type.Object({ id: Id, phaseId: Id }, { additionalProperties: false });

export const TaskResponse = dataOf(Task);
export const TaskListResponse = listOf(Task);
