import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { defineAction, externalIdField, pick, type ActionContext, type ActionInput, type InboundAction } from '../../platform/actions/action.ts';
import { bodyChecker, isNotFound, requireMapped } from '../../platform/actions/support.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError, validation } from '../../platform/http/errors.ts';
import { listPhases } from './phases/phases.repo.ts';
import { requireVisibleProject } from './projects.rules.ts';
import { CreateTaskBody } from './tasks/tasks.schemas.ts';
import { createTaskInTrx } from './tasks/tasks.writes.ts';

/** The fields a delivery may set: a subset of POST /api/v1/projects/{id}/phases/{phaseId}/tasks, with its own bounds. */
const TaskInput = Type.Pick(CreateTaskBody, ['task_name', 'description', 'assigned_to', 'due_date', 'estimated_hours']);
const TASK_KEYS = ['task_name', 'description', 'assigned_to', 'due_date', 'estimated_hours'] as const;

export function createProjectTask(db: Kysely<DB>, publicUrl: string): InboundAction {
  const ctxOf = { publicUrl };
  const check = bodyChecker(TaskInput);

  const projectOf = async (ctx: ActionContext, input: ActionInput): Promise<string> => {
    if (input.project_external_id !== undefined) {
      if (input.project_id !== undefined) throw validation('project_external_id', 'map either project_id or project_external_id, not both');
      return requireMapped(ctx, 'project', input.project_external_id as string, async (id) => {
        try {
          await requireVisibleProject(db, ctx.actor, id);
          return true;
        } catch (err) {
          if (isNotFound(err)) return false;
          throw err;
        }
      });
    }
    if (input.project_id === undefined) throw validation('project_id', 'map project_id or project_external_id: a task needs a project');
    return input.project_id as string;
  };

  const create = (ctx: ActionContext, projectId: string, phaseId: string | undefined, body: CreateTaskBody) =>
    withTransaction(db, async (trx) => {
      await requireVisibleProject(trx, ctx.actor, projectId).catch((err: unknown) => {
        throw isNotFound(err) ? validation('project_id', `no project '${projectId}'`) : err;
      });
      const phases = await listPhases(trx, ctx.actor.tenant, projectId);
      const phase = phaseId === undefined ? phases[0] : phases.find((p) => p.phase_id === phaseId);
      if (!phase) {
        throw phaseId === undefined
          ? new AppError('UNPROCESSABLE', `Project '${projectId}' has no phase to put the task in; map phase_id or add a phase first`, { reason: 'no_phase' })
          : validation('phase_id', `no phase '${phaseId}' in project '${projectId}'`);
      }
      return createTaskInTrx(trx, ctx.actor, projectId, phase.phase_id, body, ctxOf);
    });

  return defineAction(
    {
      name: 'create_project_task',
      entity_type: 'project_task',
      display_name: 'Create a project task',
      description: 'Creates a task in a phase of a project (default: the project\'s first phase) through the projects service, so project.task.created goes out like for any other task. With external_id, the task is recorded under it and a second delivery with the same external_id is refused instead of creating a duplicate.',
      permissions: ['project_task:create'],
      target_fields: [
        { name: 'task_name', type: 'string', required: true, max_length: 255, description: 'Not blank' },
        { name: 'project_id', type: 'ref', ref_entity: 'project', required: false, description: 'The project (or project_external_id)' },
        { name: 'project_external_id', type: 'string', required: false, max_length: 255, description: 'The project by an external id recorded in the tenant\'s map (instead of project_id)' },
        { name: 'phase_id', type: 'ref', ref_entity: 'project_phase', required: false, description: 'A phase of the project; default: its first phase' },
        { name: 'description', type: 'string', required: false, max_length: 100_000, nullable: true, description: 'Markdown' },
        { name: 'assigned_to', type: 'ref', ref_entity: 'user', required: false, nullable: true, description: 'An active internal user' },
        { name: 'due_date', type: 'string', required: false, max_length: 10, nullable: true, description: 'YYYY-MM-DD' },
        { name: 'estimated_hours', type: 'number', required: false, nullable: true, description: 'Hours (not minutes), at most two decimals' },
        externalIdField(false, 'task'),
      ],
    },
    async (ctx, input) => {
      const body = check(pick(input, TASK_KEYS)) as CreateTaskBody;
      const projectId = await projectOf(ctx, input);
      const phaseId = input.phase_id as string | undefined;
      const externalId = (input.external_id as string | undefined) ?? null;
      const result = (task: { task_id: string; phase_id: string }) => ({
        action: 'create_project_task', entity_type: 'project_task', entity_id: task.task_id, external_id: externalId, operation: 'created' as const,
        project_id: projectId, phase_id: task.phase_id,
      });
      if (externalId === null) return result(await create(ctx, projectId, phaseId, body));
      const outcome = await ctx.externalIds.createOnce('project_task', externalId, async () => {
        const task = await create(ctx, projectId, phaseId, body);
        return { entityId: task.task_id, value: task.phase_id };
      });
      if (!outcome.created) {
        throw new AppError('UNPROCESSABLE', `A project task already exists for external id '${externalId}'`, {
          reason: 'already_exists',
          entity_type: 'project_task',
          entity_id: outcome.entityId,
          external_id: externalId,
        });
      }
      return result({ task_id: outcome.entityId, phase_id: outcome.value });
    },
  );
}
