import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../platform/http/schemas.ts';

export const NoQuery = Type.Object({}, { additionalProperties: false });

/** Hours with at most two decimals (checked by the service: JSON Schema's multipleOf is unreliable for decimals). */
export const HoursInput = Type.Number({ minimum: 0, maximum: 99_999_999.99, description: 'Hours (not minutes), ≥ 0, at most two decimals' });

export const Project = Type.Object({
  project_id: Id,
  project_number: Type.String({ description: 'P-000001, P-000002, … per tenant; allocated at creation' }),
  project_name: Type.String(),
  description: Nullable(Type.String({ description: 'Markdown' })),
  status_id: Id,
  status_name: Type.String(),
  is_closed: Type.Boolean({ description: 'Whether the project sits in a closed status' }),
  client_id: Nullable(Id),
  client_name: Nullable(Type.String()),
  contact_name_id: Nullable(Type.String({ format: 'uuid', description: 'A contact of the project\'s client' })),
  contact_name: Nullable(Type.String()),
  assigned_to: Nullable(Type.String({ format: 'uuid', description: 'The project owner (an internal user)' })),
  assigned_to_name: Nullable(Type.String()),
  assigned_team_id: Nullable(Id),
  assigned_team_name: Nullable(Type.String()),
  start_date: Nullable(DateOnly),
  end_date: Nullable(DateOnly),
  budgeted_hours: Nullable(Type.Number({ description: 'Hours' })),
  actual_hours: Type.Number({ description: 'Sum of the tasks\' actual hours' }),
  phase_count: Type.Integer(),
  task_count: Type.Integer(),
  completed_task_count: Type.Integer(),
  created_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Type.String({ format: 'date-time', description: 'When it moved to a closed status; cleared on reopening' })),
});
export type Project = Static<typeof Project>;

const uuidOrNull = (description: string) => Nullable(Type.String({ format: 'uuid', description }));
const name = Type.String({ minLength: 1, maxLength: 255, description: 'Trimmed; not blank' });
const description = Nullable(Type.String({ maxLength: 100_000, description: 'Markdown; blank means none' }));
const date = (description: string) => Nullable(Type.String({ format: 'date', maxLength: 10, description }));

const fields = {
  description: Type.Optional(description),
  client_id: Type.Optional(uuidOrNull('The client the project is for (client-portal keys: their own only)')),
  contact_name_id: Type.Optional(uuidOrNull('A contact of the project\'s client')),
  assigned_to: Type.Optional(uuidOrNull('An active internal user owning the project')),
  assigned_team_id: Type.Optional(uuidOrNull('A team')),
  status_id: Type.Optional(Type.String({ format: 'uuid', description: 'A project status (GET /api/v1/project-statuses); default: the tenant\'s default status' })),
  start_date: Type.Optional(date('YYYY-MM-DD')),
  end_date: Type.Optional(date('YYYY-MM-DD; not before start_date')),
  budgeted_hours: Type.Optional(Nullable(HoursInput)),
};

export const CreateProjectBody = Type.Object({ project_name: name, ...fields }, { additionalProperties: false });
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const UpdateProjectBody = Type.Object(
  { project_name: Type.Optional(name), ...fields },
  { additionalProperties: false, minProperties: 1, description: 'Partial update; fields equal to the current values change nothing' },
);
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const PROJECT_SORT_FIELDS = ['project_number', 'project_name', 'created_at', 'updated_at', 'start_date', 'end_date'] as const;

const idFilter = (description?: string) => Type.Optional(Type.String({ format: 'uuid', ...(description ? { description } : {}) }));

/** The filters of GET /api/v1/projects; export, search and stats take the same, so they cover exactly what the list shows. */
export const PROJECT_FILTERS = {
  client_id: idFilter(),
  status_id: idFilter(),
  assigned_to: idFilter('Projects owned by this user'),
  assigned_team_id: idFilter(),
  is_closed: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring of the name, number or description; blank means no search' })),
};

export const ListProjectsQuery = listQuery(PROJECT_SORT_FIELDS, PROJECT_FILTERS);
export type ListProjectsQuery = Static<typeof ListProjectsQuery>;
/** The filter part of a list-shaped query (list, export, stats, search). */
export type ProjectFilterQuery = Pick<ListProjectsQuery, keyof typeof PROJECT_FILTERS | 'updated_since'>;

export const ProjectParams = Type.Object({ id: Id }, { additionalProperties: false });

export const ProjectResponse = dataOf(Project);
export const ProjectListResponse = listOf(Project);
