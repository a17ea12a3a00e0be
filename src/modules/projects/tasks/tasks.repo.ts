import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ProjectTasksTable } from '../../../platform/db/schema.projects.ts';
import { defineList } from '../../../platform/http/list.ts';
import { userDisplayName } from '../projects.repo.ts';

export type TaskRow = Selectable<ProjectTasksTable>;

/** A task with its phase, status and the names it refers to, and its checklist counts. */
export interface TaskViewRow extends TaskRow {
  phase_name: string;
  task_status_id: string;
  status_name: string;
  is_closed: boolean;
  assigned_to_name: string | null;
  assigned_team_name: string | null;
  priority_name: string | null;
  checklist_total: number;
  checklist_completed: number;
}

const taskBase = (db: Executor, tenant: string) => db.selectFrom('project_tasks as t').where('t.tenant', '=', tenant);
type TaskBase = ReturnType<typeof taskBase>;

const checklistTotal = sql<number>`(select count(*)::int from project_task_checklist_items ci where ci.tenant = t.tenant and ci.task_id = t.task_id)`;
const checklistDone = sql<number>`(select count(*)::int from project_task_checklist_items ci where ci.tenant = t.tenant and ci.task_id = t.task_id and ci.completed)`;

function withNames(q: TaskBase) {
  return q
    .innerJoin('project_phases as ph', (j) => j.onRef('ph.tenant', '=', 't.tenant').onRef('ph.phase_id', '=', 't.phase_id'))
    .innerJoin('project_task_status_mappings as m', (j) => j.onRef('m.tenant', '=', 't.tenant').onRef('m.status_mapping_id', '=', 't.status_mapping_id'))
    .innerJoin('task_statuses as ts', (j) => j.onRef('ts.tenant', '=', 'm.tenant').onRef('ts.task_status_id', '=', 'm.task_status_id'))
    .leftJoin('users as au', (j) => j.onRef('au.tenant', '=', 't.tenant').onRef('au.user_id', '=', 't.assigned_to'))
    .leftJoin('teams as tm', (j) => j.onRef('tm.tenant', '=', 't.tenant').onRef('tm.team_id', '=', 't.assigned_team_id'))
    .leftJoin('ticket_priorities as pr', (j) => j.onRef('pr.tenant', '=', 't.tenant').onRef('pr.priority_id', '=', 't.priority_id'))
    .selectAll('t')
    .select([
      'ph.phase_name',
      'ts.task_status_id',
      'ts.name as status_name',
      'ts.is_closed',
      userDisplayName('au').as('assigned_to_name'),
      'tm.team_name as assigned_team_name',
      'pr.priority_name as priority_name',
      checklistTotal.as('checklist_total'),
      checklistDone.as('checklist_completed'),
    ]);
}

export async function findTaskView(db: Executor, tenant: string, taskId: string): Promise<TaskViewRow | undefined> {
  return (await withNames(taskBase(db, tenant)).where('t.task_id', '=', taskId).executeTakeFirst()) as TaskViewRow | undefined;
}

export async function findTaskViews(db: Executor, tenant: string, taskIds: readonly string[]): Promise<TaskViewRow[]> {
  if (taskIds.length === 0) return [];
  return (await withNames(taskBase(db, tenant)).where('t.task_id', 'in', [...taskIds]).execute()) as TaskViewRow[];
}

/** Just the task's project (to resolve and lock the project before the task). */
export async function findTaskProjectId(db: Executor, tenant: string, taskId: string): Promise<string | undefined> {
  return (await db.selectFrom('project_tasks').select('project_id').where('tenant', '=', tenant).where('task_id', '=', taskId).executeTakeFirst())?.project_id;
}

export async function insertTask(db: Executor, row: Insertable<ProjectTasksTable>): Promise<void> {
  await db.insertInto('project_tasks').values(row).execute();
}

export async function updateTask(db: Executor, tenant: string, taskId: string, set: Updateable<ProjectTasksTable>): Promise<void> {
  await db.updateTable('project_tasks').set(set).where('tenant', '=', tenant).where('task_id', '=', taskId).execute();
}

export async function deleteTask(db: Executor, tenant: string, taskId: string): Promise<void> {
  await db.deleteFrom('project_tasks').where('tenant', '=', tenant).where('task_id', '=', taskId).execute();
}

export async function countTasksInPhase(db: Executor, tenant: string, phaseId: string): Promise<number> {
  const row = await db.selectFrom('project_tasks').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('phase_id', '=', phaseId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Shifts positions of the phase's tasks in [from, to] by `by` (+1 opens a gap, -1 closes one). */
export async function shiftTasks(db: Executor, tenant: string, phaseId: string, from: number, to: number, by: 1 | -1): Promise<void> {
  await db
    .updateTable('project_tasks')
    .set({ position: sql<number>`position + ${by}` })
    .where('tenant', '=', tenant)
    .where('phase_id', '=', phaseId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}

export const TASK_SORTS = ['position', 'due_date', 'created_at', 'updated_at', 'task_name'] as const;

export interface TaskListFilter {
  projectId: string;
  phaseId?: string;
  statusMappingId?: string;
  assignedTo?: string;
  isCompleted?: boolean;
}

function filtered(q: TaskBase, f: TaskListFilter): TaskBase {
  q = q.where('t.project_id', '=', f.projectId);
  if (f.phaseId !== undefined) q = q.where('t.phase_id', '=', f.phaseId);
  if (f.statusMappingId !== undefined) q = q.where('t.status_mapping_id', '=', f.statusMappingId);
  if (f.assignedTo !== undefined) q = q.where('t.assigned_to', '=', f.assignedTo);
  if (f.isCompleted !== undefined) q = q.where('t.completed_at', f.isCompleted ? 'is not' : 'is', null);
  return q;
}

/** The page is joined for its names, the count is not. `position` orders by the phase's position, then the task's; ties break on task_id. */
export function taskList(db: Executor, tenant: string, f: TaskListFilter) {
  return defineList({
    from: filtered(taskBase(db, tenant), f),
    page: withNames(filtered(taskBase(db, tenant), f)),
    sorts: {
      position: ['ph.position', 't.position'],
      due_date: [{ by: 't.due_date', nullsLast: true }],
      created_at: ['t.created_at'],
      updated_at: ['t.updated_at'],
      task_name: [sql`lower(t.task_name)`],
    },
    defaultSort: 'position',
    defaultOrder: 'asc',
    tieBreaker: 't.task_id',
    updatedAt: 't.updated_at',
  });
}

export async function listTaskIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]> {
  let q = db.selectFrom('project_tasks').select('task_id').where('tenant', '=', tenant);
  if (afterId !== null) q = q.where('task_id', '>', afterId);
  return (await q.orderBy('task_id').limit(limit).execute()).map((r) => r.task_id);
}
