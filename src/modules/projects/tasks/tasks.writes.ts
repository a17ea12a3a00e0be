import type { Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { PROJECT_TASK_EVENTS } from '../projects.vocabulary.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { AppError, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { findPhase } from '../phases/phases.repo.ts';
import { hours } from '../projects.mapper.ts';
import type { Changes } from '../projects.events.ts';
import { findProjectView, type ProjectViewRow } from '../projects.repo.ts';
import { checkAssignee, checkHours, checkTeam, requireVisibleProject } from '../projects.rules.ts';
import type { WriteContext } from '../projects.writes.ts';
import { findDefaultStatusMapping, findStatusMapping, type StatusMappingRow } from '../statuses/statuses.repo.ts';
import { emitTaskEvents, eventsOfTaskChange } from './tasks.events.ts';
import { toTask } from './tasks.mapper.ts';
import { countTasksInPhase, deleteTask, findTaskProjectId, findTaskView, insertTask, shiftTasks, updateTask, type TaskViewRow } from './tasks.repo.ts';
import type { CreateTaskBody, Task, UpdateTaskBody } from './tasks.schemas.ts';

/**
 * The task and its project if the actor may see the project (portal keys: their client's); otherwise
 * 404. With `lock`, the project row is locked first: every write under a project serialises on it.
 */
export async function requireVisibleTask(db: Executor, actor: Actor, taskId: string, lock = false): Promise<{ project: ProjectViewRow; task: TaskViewRow }> {
  const projectId = await findTaskProjectId(db, actor.tenant, taskId);
  if (projectId === undefined) throw notFound('Task', taskId);
  let project: ProjectViewRow;
  try {
    project = await requireVisibleProject(db, actor, projectId, lock);
  } catch (e) {
    if (e instanceof AppError && e.code === 'NOT_FOUND') throw notFound('Task', taskId);
    throw e;
  }
  const task = await findTaskView(db, actor.tenant, taskId);
  if (!task) throw notFound('Task', taskId);
  return { project, task };
}

async function checkMapping(db: Executor, tenant: string, projectId: string, mappingId: string): Promise<StatusMappingRow> {
  const mapping = await findStatusMapping(db, tenant, mappingId);
  if (!mapping || mapping.project_id !== projectId) throw validation('body.status_mapping_id', `no task status mapping '${mappingId}' in this project (GET /api/v1/projects/${projectId}/task-status-mappings)`);
  return mapping;
}

async function checkPriority(db: Executor, tenant: string, priorityId: string | null): Promise<void> {
  if (priorityId === null) return;
  const row = await db.selectFrom('ticket_priorities').select('priority_id').where('tenant', '=', tenant).where('priority_id', '=', priorityId).executeTakeFirst();
  if (!row) throw validation('body.priority_id', `no priority '${priorityId}'`);
}

/**
 * Creates a task in a phase of the project at `position` (default last). Status defaults to the
 * project's mapping of the tenant's default task status; a task created in a closed status is
 * complete at once. Emits project.task.created.
 */
export async function createTaskInTrx(trx: Transaction<DB>, actor: Actor, projectId: string, phaseId: string, body: CreateTaskBody, ctx: WriteContext): Promise<Task> {
  const { tenant } = actor;
  const taskName = requiredText(body.task_name, 'body.task_name');
  checkHours(body.estimated_hours, 'body.estimated_hours');
  checkHours(body.actual_hours, 'body.actual_hours');
  await requireVisibleProject(trx, actor, projectId, true);
  const phase = await findPhase(trx, tenant, phaseId);
  if (!phase || phase.project_id !== projectId) throw notFound('Phase', phaseId);
  const mapping = body.status_mapping_id !== undefined
    ? await checkMapping(trx, tenant, projectId, body.status_mapping_id)
    : await findDefaultStatusMapping(trx, tenant, projectId);
  if (!mapping) throw unprocessable('The project has no open task status mapping; send status_mapping_id');
  await checkAssignee(trx, tenant, body.assigned_to ?? null, 'body.assigned_to');
  await checkTeam(trx, tenant, body.assigned_team_id ?? null, 'body.assigned_team_id');
  await checkPriority(trx, tenant, body.priority_id ?? null);

  const count = await countTasksInPhase(trx, tenant, phaseId);
  const position = Math.min(body.position ?? count + 1, count + 1);
  await shiftTasks(trx, tenant, phaseId, position, count, 1);
  const taskId = newId();
  const now = new Date();
  await insertTask(trx, {
    tenant,
    task_id: taskId,
    project_id: projectId,
    phase_id: phaseId,
    task_name: taskName,
    description: optionalText(body.description) ?? null,
    status_mapping_id: mapping.status_mapping_id,
    assigned_to: body.assigned_to ?? null,
    assigned_team_id: body.assigned_team_id ?? null,
    estimated_hours: body.estimated_hours ?? null,
    actual_hours: body.actual_hours ?? 0,
    due_date: body.due_date ?? null,
    priority_id: body.priority_id ?? null,
    position,
    completed_at: mapping.is_closed ? now : null,
    created_by: actor.userId,
    created_at: now,
    updated_by: actor.userId,
    updated_at: now,
  });
  const task = (await findTaskView(trx, tenant, taskId))!;
  const project = (await findProjectView(trx, tenant, projectId))!;
  await emitTaskEvents(trx, project, task, [PROJECT_TASK_EVENTS.created], { publicUrl: ctx.publicUrl });
  await syncSearch(trx, tenant, 'project_task', [taskId]);
  return toTask(task);
}

/** Upper bound for "every later sibling" (an int4, like the column). */
const MAX_POSITION = 2_147_483_647;

const SCALARS = ['task_name', 'description', 'status_mapping_id', 'assigned_to', 'assigned_team_id', 'due_date', 'priority_id'] as const;

/**
 * Partial update under the project's lock, honouring If-Match. phase_id moves the task to another
 * phase of the same project (a phase elsewhere is a 400); position reorders it within its phase.
 * Emits project.task.updated (with `changes`) and status_changed / completed / assigned as they apply.
 */
export async function updateTaskInTrx(trx: Transaction<DB>, actor: Actor, taskId: string, patch: UpdateTaskBody, ctx: WriteContext): Promise<Task> {
  const { tenant } = actor;
  const { task: current } = await requireVisibleTask(trx, actor, taskId, true);
  assertIfMatch(ctx.ifMatch, toTask(current));
  checkHours(patch.estimated_hours, 'body.estimated_hours');
  checkHours(patch.actual_hours, 'body.actual_hours');
  const next: Record<(typeof SCALARS)[number], unknown> = {
    task_name: patch.task_name === undefined ? undefined : requiredText(patch.task_name, 'body.task_name'),
    description: optionalText(patch.description),
    status_mapping_id: patch.status_mapping_id,
    assigned_to: patch.assigned_to,
    assigned_team_id: patch.assigned_team_id,
    due_date: patch.due_date,
    priority_id: patch.priority_id,
  };
  const set: Record<string, unknown> = {};
  const changes: Changes = {};
  for (const column of SCALARS) {
    const value = next[column];
    if (value === undefined || value === current[column]) continue;
    set[column] = value;
    changes[column] = { previous: current[column], new: value };
  }
  for (const column of ['estimated_hours', 'actual_hours'] as const) {
    const value = patch[column];
    if (value === undefined || value === hours(current[column])) continue;
    set[column] = value;
    changes[column] = { previous: hours(current[column]), new: value };
  }

  let mapping: StatusMappingRow | undefined;
  if ('status_mapping_id' in set) mapping = await checkMapping(trx, tenant, current.project_id, set.status_mapping_id as string);
  if ('assigned_to' in set) await checkAssignee(trx, tenant, set.assigned_to as string | null, 'body.assigned_to');
  if ('assigned_team_id' in set) await checkTeam(trx, tenant, set.assigned_team_id as string | null, 'body.assigned_team_id');
  if ('priority_id' in set) await checkPriority(trx, tenant, set.priority_id as string | null);

  const targetPhase = patch.phase_id ?? current.phase_id;
  if (targetPhase !== current.phase_id) {
    const phase = await findPhase(trx, tenant, targetPhase);
    if (!phase || phase.project_id !== current.project_id) throw validation('body.phase_id', `no phase '${targetPhase}' in the task's project; tasks move only between phases of their own project`);
    await shiftTasks(trx, tenant, current.phase_id, current.position + 1, MAX_POSITION, -1);
    const count = await countTasksInPhase(trx, tenant, targetPhase);
    const position = Math.min(patch.position ?? count + 1, count + 1);
    await shiftTasks(trx, tenant, targetPhase, position, count, 1);
    set.phase_id = targetPhase;
    set.position = position;
    changes.phase_id = { previous: current.phase_id, new: targetPhase };
  } else if (patch.position !== undefined) {
    const count = await countTasksInPhase(trx, tenant, current.phase_id);
    const target = Math.min(patch.position, count);
    if (target < current.position) await shiftTasks(trx, tenant, current.phase_id, target, current.position - 1, 1);
    if (target > current.position) await shiftTasks(trx, tenant, current.phase_id, current.position + 1, target, -1);
    if (target !== current.position) set.position = target;
  }
  if (set.position !== undefined && set.position !== current.position) changes.position = { previous: current.position, new: set.position };
  if (Object.keys(set).length === 0) return toTask(current);

  const now = new Date();
  if (mapping && mapping.is_closed !== current.is_closed) set.completed_at = mapping.is_closed ? now : null;
  await updateTask(trx, tenant, taskId, { ...set, updated_at: now, updated_by: actor.userId });
  const after = (await findTaskView(trx, tenant, taskId))!;
  const project = (await findProjectView(trx, tenant, current.project_id))!;
  const previousStatus = 'status_mapping_id' in changes ? { status_id: current.task_status_id, status_name: current.status_name } : null;
  await emitTaskEvents(trx, project, after, eventsOfTaskChange(current, after, changes), { publicUrl: ctx.publicUrl, previousStatus, changes });
  await syncSearch(trx, tenant, 'project_task', [taskId]);
  return toTask(after);
}

/** Deletes the task with its checklist, comments and reactions, and closes the gap in its phase. */
export async function deleteTaskInTrx(trx: Transaction<DB>, actor: Actor, taskId: string, ctx: WriteContext): Promise<void> {
  const { tenant } = actor;
  const { task } = await requireVisibleTask(trx, actor, taskId, true);
  assertIfMatch(ctx.ifMatch, toTask(task));
  await deleteTask(trx, tenant, taskId);
  await shiftTasks(trx, tenant, task.phase_id, task.position + 1, MAX_POSITION, -1);
  await syncSearch(trx, tenant, 'project_task', [taskId]);
}
