import { iso } from '../../../platform/time.ts';
import { hours, toProjectData, type PreviousStatus, type ProjectData } from '../projects.mapper.ts';
import type { ProjectViewRow } from '../projects.repo.ts';
import type { TaskViewRow } from './tasks.repo.ts';
import type { Task } from './tasks.schemas.ts';

export function toTask(row: TaskViewRow): Task {
  return {
    task_id: row.task_id,
    project_id: row.project_id,
    phase_id: row.phase_id,
    phase_name: row.phase_name,
    task_name: row.task_name,
    description: row.description,
    status_mapping_id: row.status_mapping_id,
    status_id: row.task_status_id,
    status_name: row.status_name,
    is_closed: row.is_closed,
    is_completed: row.completed_at !== null,
    completed_at: iso(row.completed_at),
    assigned_to: row.assigned_to,
    assigned_to_name: row.assigned_to_name,
    assigned_team_id: row.assigned_team_id,
    assigned_team_name: row.assigned_team_name,
    estimated_hours: hours(row.estimated_hours),
    actual_hours: hours(row.actual_hours),
    due_date: row.due_date,
    priority_id: row.priority_id,
    priority_name: row.priority_name,
    position: row.position,
    checklist_total: Number(row.checklist_total),
    checklist_completed: Number(row.checklist_completed),
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * The `data` of project.task.* events: the project's fields, then the task's. Where a field exists on
 * both, task events describe the task: description, the status fields (status_id is the tenant task
 * status; is_closed and previous_status_* follow it), assigned_to / assigned_team_id, updated_at and
 * url. Project-only fields (number, name, client, contact, dates, budget) stay the project's.
 */
export function toTaskData(project: ProjectViewRow, task: TaskViewRow, ctx: { publicUrl: string; previousStatus?: PreviousStatus | null }): ProjectData {
  const data = toProjectData(project, { publicUrl: ctx.publicUrl });
  return {
    ...data,
    description: task.description,
    status_id: task.task_status_id,
    status_name: task.status_name,
    previous_status_id: ctx.previousStatus?.status_id ?? null,
    previous_status_name: ctx.previousStatus?.status_name ?? null,
    is_closed: task.is_closed,
    assigned_to: task.assigned_to,
    assigned_to_name: task.assigned_to_name,
    assigned_team_id: task.assigned_team_id,
    task_id: task.task_id,
    task_name: task.task_name,
    phase_id: task.phase_id,
    phase_name: task.phase_name,
    estimated_hours: hours(task.estimated_hours),
    actual_hours: hours(task.actual_hours),
    due_date: task.due_date,
    priority_id: task.priority_id,
    priority_name: task.priority_name,
    updated_at: iso(task.updated_at),
    url: `${ctx.publicUrl}/api/v1/projects/tasks/${task.task_id}`,
  };
}
