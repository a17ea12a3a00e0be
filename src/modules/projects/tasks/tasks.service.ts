import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { notFound } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { findPhase } from '../phases/phases.repo.ts';
import { requireVisibleProject } from '../projects.rules.ts';
import { toTask } from './tasks.mapper.ts';
import { taskList } from './tasks.repo.ts';
import type { CreateTaskBody, ListPhaseTasksQuery, ListProjectTasksQuery, Task, UpdateTaskBody } from './tasks.schemas.ts';
import { createTaskInTrx, deleteTaskInTrx, requireVisibleTask, updateTaskInTrx } from './tasks.writes.ts';

export function createTasksService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  async function list(actor: Actor, projectId: string, query: ListProjectTasksQuery) {
    const filter = { projectId, phaseId: query.phase_id, statusMappingId: query.status_mapping_id, assignedTo: query.assigned_to, isCompleted: query.is_completed };
    return listPage(query, taskList(db, actor.tenant, filter), (rows) => rows.map(toTask));
  }

  return {
    async listOfProject(actor: Actor, projectId: string, query: ListProjectTasksQuery) {
      await requireVisibleProject(db, actor, projectId);
      return list(actor, projectId, query);
    },
    async listOfPhase(actor: Actor, projectId: string, phaseId: string, query: ListPhaseTasksQuery) {
      await requireVisibleProject(db, actor, projectId);
      const phase = await findPhase(db, actor.tenant, phaseId);
      if (!phase || phase.project_id !== projectId) throw notFound('Phase', phaseId);
      return list(actor, projectId, { ...query, phase_id: phaseId });
    },
    async get(actor: Actor, taskId: string): Promise<Task> {
      return toTask((await requireVisibleTask(db, actor, taskId)).task);
    },
    create(actor: Actor, projectId: string, phaseId: string, body: CreateTaskBody): Promise<Task> {
      return withTransaction(db, (trx) => createTaskInTrx(trx, actor, projectId, phaseId, body, { publicUrl }));
    },
    update(actor: Actor, taskId: string, body: UpdateTaskBody, ifMatch?: string): Promise<Task> {
      return withTransaction(db, (trx) => updateTaskInTrx(trx, actor, taskId, body, { publicUrl, ifMatch }));
    },
    remove(actor: Actor, taskId: string, ifMatch?: string): Promise<void> {
      return withTransaction(db, (trx) => deleteTaskInTrx(trx, actor, taskId, { publicUrl, ifMatch }));
    },
  };
}

export type TasksService = ReturnType<typeof createTasksService>;
