import type { TestApp } from './harness.ts';
import { unique, type Api } from './factories.ts';
import { expectStatus } from './client-factories.ts';

/** Shared helpers for project suites (and other areas' tests that need projects): records made through the API. */

export interface ProjectJson {
  project_id: string;
  project_number: string;
  project_name: string;
  description: string | null;
  status_id: string;
  status_name: string;
  is_closed: boolean;
  client_id: string | null;
  client_name: string | null;
  contact_name_id: string | null;
  contact_name: string | null;
  assigned_to: string | null;
  assigned_to_name: string | null;
  assigned_team_id: string | null;
  assigned_team_name: string | null;
  start_date: string | null;
  end_date: string | null;
  budgeted_hours: number | null;
  actual_hours: number;
  phase_count: number;
  task_count: number;
  completed_task_count: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface PhaseJson {
  phase_id: string;
  project_id: string;
  phase_name: string;
  position: number;
  task_count: number;
}

export interface TaskJson {
  task_id: string;
  project_id: string;
  phase_id: string;
  phase_name: string;
  task_name: string;
  status_mapping_id: string;
  status_id: string;
  status_name: string;
  is_closed: boolean;
  is_completed: boolean;
  completed_at: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  estimated_hours: number | null;
  actual_hours: number;
  due_date: string | null;
  priority_id: string | null;
  position: number;
  checklist_total: number;
  checklist_completed: number;
  updated_at: string;
}

export interface MappingJson {
  status_mapping_id: string;
  status_id: string;
  status_name: string;
  is_closed: boolean;
  is_default: boolean;
}

export interface ProjectStatusJson {
  status_id: string;
  name: string;
  is_closed: boolean;
  is_default: boolean;
}

export async function makeProject(api: Api, body: Record<string, unknown> = {}): Promise<ProjectJson> {
  const res = await api.post('/api/v1/projects', { project_name: unique('Project'), ...body });
  expectStatus(res, 201);
  return res.json().data as ProjectJson;
}

export async function makePhase(api: Api, projectId: string, body: Record<string, unknown> = {}): Promise<PhaseJson> {
  const res = await api.post(`/api/v1/projects/${projectId}/phases`, { phase_name: unique('Phase'), ...body });
  expectStatus(res, 201);
  return res.json().data as PhaseJson;
}

export async function makeTask(api: Api, projectId: string, phaseId: string, body: Record<string, unknown> = {}): Promise<TaskJson> {
  const res = await api.post(`/api/v1/projects/${projectId}/phases/${phaseId}/tasks`, { task_name: unique('Task'), ...body });
  expectStatus(res, 201);
  return res.json().data as TaskJson;
}

/** A project with one phase and one task in it. */
export async function makeProjectTree(api: Api, body: Record<string, unknown> = {}) {
  const project = await makeProject(api, body);
  const phase = await makePhase(api, project.project_id);
  const task = await makeTask(api, project.project_id, phase.phase_id);
  return { project, phase, task };
}

/** The project's task status mappings by status name (To Do, In Progress, Done). */
export async function mappingsOf(api: Api, projectId: string): Promise<Record<string, MappingJson>> {
  const res = await api.get(`/api/v1/projects/${projectId}/task-status-mappings`);
  expectStatus(res, 200);
  return Object.fromEntries((res.json().data as MappingJson[]).map((m) => [m.status_name, m]));
}

/** The tenant's project statuses by name (Planning, Active, On Hold, Completed, Cancelled). */
export async function projectStatuses(api: Api): Promise<Record<string, ProjectStatusJson>> {
  const res = await api.get('/api/v1/project-statuses');
  expectStatus(res, 200);
  return Object.fromEntries((res.json().data as ProjectStatusJson[]).map((s) => [s.name, s]));
}

export interface ProjectEventRow {
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: { data: Record<string, unknown>; changes?: Record<string, { previous: unknown; new: unknown }> };
}

/** The tenant's outbox rows for a project or a task (by aggregate id), oldest first. */
export async function projectEvents(t: TestApp, tenant: string, aggregateId: string): Promise<ProjectEventRow[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['event_id', 'event_type', 'aggregate_type', 'aggregate_id', 'payload'])
    .where('tenant', '=', tenant)
    .where('aggregate_id', '=', aggregateId)
    .orderBy('event_id', 'asc')
    .execute();
  return rows.map((r) => ({ ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as ProjectEventRow['payload'] }));
}
