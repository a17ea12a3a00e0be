import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { unique, type Api, type Res } from './factories.ts';

/** Helpers of the project templates / bulk / export / links suites: records made through the API, and raw look-ups. */

/** A JSON value as responses are read in assertions: deliberately loose, like `res.json()` in the other suites. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export function ok<T = Record<string, unknown>>(res: Res, status = 200): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json().data as T;
}

export interface ProjectJson {
  project_id: string;
  project_number: string;
  project_name: string;
  status_id: string;
  status_name: string;
  is_closed: boolean;
  client_id: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
  start_date: string | null;
  end_date: string | null;
  budgeted_hours: number | null;
  phase_count: number;
  task_count: number;
  updated_at: string;
}

export const makeProject = async (api: Api, body: Record<string, unknown> = {}): Promise<ProjectJson> =>
  ok<ProjectJson>(await api.post('/api/v1/projects', { project_name: unique('Project'), ...body }), 201);

export const makePhase = async (api: Api, projectId: string, body: Record<string, unknown> = {}) =>
  ok<{ phase_id: string; phase_name: string; start_date: string | null; end_date: string | null }>(
    await api.post(`/api/v1/projects/${projectId}/phases`, { phase_name: unique('Phase'), ...body }), 201);

export const makeTask = async (api: Api, projectId: string, phaseId: string, body: Record<string, unknown> = {}) =>
  ok<{ task_id: string; task_name: string; phase_id: string; status_mapping_id: string; status_id: string; due_date: string | null; assigned_to: string | null }>(
    await api.post(`/api/v1/projects/${projectId}/phases/${phaseId}/tasks`, { task_name: unique('Task'), ...body }), 201);

/** The tenant's task statuses by name (To Do, In Progress, Done). */
export async function taskStatuses(t: TestApp, tenant: string): Promise<Record<string, string>> {
  const rows = await t.database.db.selectFrom('task_statuses').select(['task_status_id', 'name']).where('tenant', '=', tenant).execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.task_status_id]));
}

/** The tenant's project statuses by name (Planning, Active, On Hold, Completed, Cancelled). */
export async function projectStatuses(t: TestApp, tenant: string): Promise<Record<string, string>> {
  const rows = await t.database.db.selectFrom('project_statuses').select(['status_id', 'name']).where('tenant', '=', tenant).execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.status_id]));
}

/** A template body with two phases, three tasks and checklist items. */
export function templateBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    template_name: unique('Template'),
    description: 'Standard rollout',
    category: 'Onboarding',
    phases: [
      {
        phase_name: 'Discovery',
        start_offset_days: 0,
        duration_days: 5,
        tasks: [
          { task_name: 'Kick-off', estimated_hours: 1.5, due_offset_days: 1, checklist: [{ item_name: 'Agenda' }, { item_name: 'Invite', completed: true }] },
          { task_name: 'Inventory', estimated_hours: 4 },
        ],
      },
      { phase_name: 'Rollout', start_offset_days: 5, duration_days: 10, tasks: [{ task_name: 'Deploy', due_offset_days: 9 }] },
    ],
    ...overrides,
  };
}

export async function makeTemplate(api: Api, overrides: Record<string, unknown> = {}) {
  return ok<{ template_id: string; template_name: string; phases: { template_phase_id: string; tasks: { template_task_id: string; checklist: unknown[] }[] }[] }>(
    await api.post('/api/projects/templates', templateBody(overrides)), 201);
}

export async function rowCount(t: TestApp, table: 'project_templates' | 'project_template_phases' | 'project_template_tasks' | 'project_ticket_links' | 'projects' | 'events', tenant: string): Promise<number> {
  const r = await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).executeTakeFirstOrThrow();
  return Number(r.n);
}
