import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { validation } from '../../../platform/http/errors.ts';
import { requireVisibleProject } from '../projects.rules.ts';
import type { TemplateTree } from './templates.repo.ts';
import { TEMPLATE_LIMITS } from './templates.schemas.ts';

const DAY_MS = 86_400_000;
/** Whole days from a to b (both YYYY-MM-DD), never negative. */
const daysBetween = (a: string, b: string): number => Math.max(0, Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS));
const clampDays = (n: number): number => Math.min(n, 3650);

/**
 * A project's structure as template content: phases in order with their start as days after the
 * project's start (0 when either date is missing) and their length in days, tasks with their status,
 * estimate, assignee and team as hints and their due date as days after the phase start, checklist
 * items as they stand, and the project's task statuses in their order.
 */
export async function treeFromProject(db: Executor, actor: Actor, projectId: string): Promise<TemplateTree> {
  const project = await requireVisibleProject(db, actor, projectId).catch((err: unknown) => {
    throw err instanceof Error && 'statusCode' in err && err.statusCode === 404 ? validation('body.project_id', `no project '${projectId}'`) : err;
  });
  const { tenant } = actor;
  const [phases, tasks, items, mappings] = await Promise.all([
    db.selectFrom('project_phases').selectAll().where('tenant', '=', tenant).where('project_id', '=', projectId).orderBy('position').execute(),
    db
      .selectFrom('project_tasks as t')
      .innerJoin('project_task_status_mappings as m', (j) => j.onRef('m.tenant', '=', 't.tenant').onRef('m.status_mapping_id', '=', 't.status_mapping_id'))
      .select(['t.task_id', 't.phase_id', 't.task_name', 't.description', 't.estimated_hours', 't.due_date', 't.assigned_to', 't.assigned_team_id', 'm.task_status_id'])
      .where('t.tenant', '=', tenant)
      .where('t.project_id', '=', projectId)
      .orderBy('t.phase_id')
      .orderBy('t.position')
      .execute(),
    db
      .selectFrom('project_task_checklist_items as c')
      .innerJoin('project_tasks as t', (j) => j.onRef('t.tenant', '=', 'c.tenant').onRef('t.task_id', '=', 'c.task_id'))
      .select(['c.task_id', 'c.item_name', 'c.completed'])
      .where('c.tenant', '=', tenant)
      .where('t.project_id', '=', projectId)
      .orderBy('c.task_id')
      .orderBy('c.position')
      .execute(),
    db.selectFrom('project_task_status_mappings').select('task_status_id').where('tenant', '=', tenant).where('project_id', '=', projectId)
      .orderBy('display_order').orderBy('status_mapping_id').execute(),
  ]);
  if (phases.length > TEMPLATE_LIMITS.phases || tasks.length > TEMPLATE_LIMITS.tasks || items.length > TEMPLATE_LIMITS.checklistItems) {
    throw validation('body.project_id', `the project is larger than a template may be (${TEMPLATE_LIMITS.phases} phases, ${TEMPLATE_LIMITS.tasks} tasks, ${TEMPLATE_LIMITS.checklistItems} checklist items)`);
  }
  const itemsOf = new Map<string, { item_name: string; completed: boolean }[]>();
  for (const i of items) itemsOf.set(i.task_id, [...(itemsOf.get(i.task_id) ?? []), { item_name: i.item_name, completed: i.completed }]);
  return {
    phases: phases.map((p) => {
      const phaseTasks = tasks.filter((k) => k.phase_id === p.phase_id);
      if (phaseTasks.length > TEMPLATE_LIMITS.tasksPerPhase) throw validation('body.project_id', `phase '${p.phase_name}' has more than ${TEMPLATE_LIMITS.tasksPerPhase} tasks`);
      return {
        phase_name: p.phase_name,
        description: p.description,
        start_offset_days: project.start_date && p.start_date ? clampDays(daysBetween(project.start_date, p.start_date)) : 0,
        duration_days: p.start_date && p.end_date ? clampDays(daysBetween(p.start_date, p.end_date) + 1) : null,
        tasks: phaseTasks.map((k) => ({
          task_name: k.task_name,
          description: k.description,
          estimated_hours: k.estimated_hours === null ? null : Number(k.estimated_hours),
          due_offset_days: p.start_date && k.due_date ? clampDays(daysBetween(p.start_date, k.due_date)) : null,
          assigned_to: k.assigned_to,
          assigned_team_id: k.assigned_team_id,
          task_status_id: k.task_status_id,
          checklist: (itemsOf.get(k.task_id) ?? []).slice(0, TEMPLATE_LIMITS.checklistPerTask),
        })),
      };
    }),
    statusMappings: mappings.map((m) => m.task_status_id),
  };
}
