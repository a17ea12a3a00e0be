import { Type, type Static } from 'typebox';
import { Id, Timestamp, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { PROJECT_FILTERS, Project } from '../projects.schemas.ts';

/** The list's filters (updated_since included). */
export const projectFilters = { updated_since: Type.Optional(Timestamp), ...PROJECT_FILTERS };

export const ExportProjectsQuery = Type.Object(
  { format: Type.Optional(Type.Enum(['csv', 'json'], { description: 'Default csv' })), ...projectFilters },
  { additionalProperties: false },
);
export type ExportProjectsQuery = Static<typeof ExportProjectsQuery>;

export const StatsQuery = Type.Object(projectFilters, { additionalProperties: false });
export type StatsQuery = Static<typeof StatsQuery>;

export const SearchProjectsQuery = listQuery(['relevance'] as const, {
  query: Type.String({ minLength: 1, maxLength: 200, description: 'Free text, matched case-insensitively and literally (% and _ are no wildcards) in the name, number, description and client name' }),
  ...projectFilters,
});
export type SearchProjectsQuery = Static<typeof SearchProjectsQuery>;

export const ProjectStats = Type.Object({
  total_projects: Type.Integer(),
  open_projects: Type.Integer(),
  closed_projects: Type.Integer(),
  overdue_projects: Type.Integer({ description: 'Open projects whose end_date is before today (UTC)' }),
  by_status: Type.Array(Type.Object({ status_id: Id, status_name: Type.String(), is_closed: Type.Boolean(), project_count: Type.Integer() }), {
    description: 'Every project status of the tenant, in its order, with how many of the matching projects sit in it',
  }),
  total_budgeted_hours: Type.Number({ description: 'Sum of budgeted_hours (hours)' }),
  total_estimated_hours: Type.Number({ description: 'Sum of the tasks\' estimated hours' }),
  total_actual_hours: Type.Number({ description: 'Sum of the tasks\' actual hours' }),
});
export type ProjectStats = Static<typeof ProjectStats>;

export const StatsResponse = Type.Object({ data: ProjectStats });
export const SearchResponse = listOf(Project);
