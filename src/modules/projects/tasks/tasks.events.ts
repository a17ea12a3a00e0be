import type { Transaction } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { PROJECT_TASK_EVENTS } from '../projects.vocabulary.ts';
import { emit } from '../../../platform/events/outbox.ts';
import type { PreviousStatus } from '../projects.mapper.ts';
import type { Changes } from '../projects.events.ts';
import type { ProjectViewRow } from '../projects.repo.ts';
import { toTaskData } from './tasks.mapper.ts';
import type { TaskViewRow } from './tasks.repo.ts';

export type TaskEventType = (typeof PROJECT_TASK_EVENTS)[keyof typeof PROJECT_TASK_EVENTS];

/**
 * The public events of one task write, in order: project.task.updated (with `changes`) whenever a
 * field changed, status_changed when the status did, completed when it moved from an open to a closed
 * status, assigned when the assignee or the team did.
 */
export function eventsOfTaskChange(before: Pick<TaskViewRow, 'is_closed'>, after: Pick<TaskViewRow, 'is_closed'>, changes: Changes): TaskEventType[] {
  if (Object.keys(changes).length === 0) return [];
  const types: TaskEventType[] = [PROJECT_TASK_EVENTS.updated];
  if ('status_mapping_id' in changes) types.push(PROJECT_TASK_EVENTS.statusChanged);
  if (!before.is_closed && after.is_closed) types.push(PROJECT_TASK_EVENTS.completed);
  if ('assigned_to' in changes || 'assigned_team_id' in changes) types.push(PROJECT_TASK_EVENTS.assigned);
  return types;
}

/** Task events aggregate on the task (aggregate_type project_task); data carries project_id and task_id. */
export async function emitTaskEvents(
  trx: Transaction<DB>,
  project: ProjectViewRow,
  task: TaskViewRow,
  types: readonly TaskEventType[],
  ctx: { publicUrl: string; previousStatus?: PreviousStatus | null; changes?: Changes },
): Promise<void> {
  const data = toTaskData(project, task, ctx);
  for (const event_type of types) {
    const payload = event_type === PROJECT_TASK_EVENTS.updated ? { data, changes: ctx.changes ?? {} } : { data };
    await emit(trx, { tenant: task.tenant, event_type, aggregate_type: 'project_task', aggregate_id: task.task_id, payload });
  }
}
