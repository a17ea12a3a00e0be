import type { PROJECT_DATA_FIELDS } from './projects.vocabulary.ts';
import { iso } from '../../platform/time.ts';
import type { ProjectViewRow } from './projects.repo.ts';
import type { Project } from './projects.schemas.ts';

/** numeric hours as the drivers return them (text) → a number; null stays null. */
export function hours(v: string | number): number;
export function hours(v: string | number | null): number | null;
export function hours(v: string | number | null): number | null {
  return v === null ? null : Number(v);
}

export function toProject(row: ProjectViewRow): Project {
  return {
    project_id: row.project_id,
    project_number: row.project_number,
    project_name: row.project_name,
    description: row.description,
    status_id: row.status_id,
    status_name: row.status_name,
    is_closed: row.is_closed,
    client_id: row.client_id,
    client_name: row.client_name,
    contact_name_id: row.contact_id,
    contact_name: row.contact_name,
    assigned_to: row.assigned_to,
    assigned_to_name: row.assigned_to_name,
    assigned_team_id: row.assigned_team_id,
    assigned_team_name: row.assigned_team_name,
    start_date: row.start_date,
    end_date: row.end_date,
    budgeted_hours: hours(row.budgeted_hours),
    actual_hours: hours(row.actual_hours),
    phase_count: Number(row.phase_count),
    task_count: Number(row.task_count),
    completed_task_count: Number(row.completed_task_count),
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    closed_at: iso(row.closed_at),
  };
}

export type ProjectData = Record<(typeof PROJECT_DATA_FIELDS)[number], unknown>;

export interface PreviousStatus {
  status_id: string;
  status_name: string;
}

/**
 * The curated `data` of project events: exactly PROJECT_DATA_FIELDS, in that order, task fields null.
 * Projects carry no tags, so `tags` is null too. `url` is the project's API address, like tickets'.
 */
export function toProjectData(row: ProjectViewRow, ctx: { publicUrl: string; previousStatus?: PreviousStatus | null }): ProjectData {
  return {
    project_id: row.project_id,
    project_number: row.project_number,
    project_name: row.project_name,
    description: row.description,
    status_id: row.status_id,
    status_name: row.status_name,
    previous_status_id: ctx.previousStatus?.status_id ?? null,
    previous_status_name: ctx.previousStatus?.status_name ?? null,
    is_closed: row.is_closed,
    client_id: row.client_id,
    client_name: row.client_name,
    contact_name_id: row.contact_id,
    contact_name: row.contact_name,
    contact_email: row.contact_email,
    assigned_to: row.assigned_to,
    assigned_to_name: row.assigned_to_name,
    assigned_team_id: row.assigned_team_id,
    start_date: row.start_date,
    end_date: row.end_date,
    budgeted_hours: hours(row.budgeted_hours),
    task_id: null,
    task_name: null,
    phase_id: null,
    phase_name: null,
    estimated_hours: null,
    actual_hours: null,
    due_date: null,
    priority_id: null,
    priority_name: null,
    tags: null,
    updated_at: iso(row.updated_at),
    url: `${ctx.publicUrl}/api/v1/projects/${row.project_id}`,
  };
}
