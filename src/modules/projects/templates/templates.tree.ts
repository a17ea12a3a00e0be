import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { AppError, validation } from '../../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { isPortalActor } from '../../clients/index.ts';
import { checkHours } from '../projects.rules.ts';
import { existingRefs, type TemplateTree } from './templates.repo.ts';
import { TEMPLATE_LIMITS, type TemplatePhaseInput, type TemplateStatusMappingInput } from './templates.schemas.ts';

/** Templates are the service desk's own tooling: client-portal keys never see or use them. */
export function assertInternalActor(actor: Actor): void {
  if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Project templates are not available to client-portal keys');
}

/**
 * Turns a body's phases and status mappings into what is stored: names trimmed (blank is a 400 naming
 * the item), totals capped, and every referenced status, user and team checked to exist in the tenant,
 * so a template can always be applied as saved.
 */
export async function treeOf(
  db: Executor,
  actor: Actor,
  phases: readonly TemplatePhaseInput[],
  mappings: readonly TemplateStatusMappingInput[] | undefined,
  path = 'body',
): Promise<TemplateTree> {
  let taskTotal = 0;
  let itemTotal = 0;
  const tree: TemplateTree = {
    phases: phases.map((p, pi) => {
      const pp = `${path}.phases[${pi}]`;
      return {
        phase_name: requiredText(p.phase_name, `${pp}.phase_name`),
        description: optionalText(p.description) ?? null,
        start_offset_days: p.start_offset_days ?? 0,
        duration_days: p.duration_days ?? null,
        tasks: (p.tasks ?? []).map((k, ki) => {
          const kp = `${pp}.tasks[${ki}]`;
          taskTotal++;
          itemTotal += k.checklist?.length ?? 0;
          checkHours(k.estimated_hours, `${kp}.estimated_hours`);
          return {
            task_name: requiredText(k.task_name, `${kp}.task_name`),
            description: optionalText(k.description) ?? null,
            estimated_hours: k.estimated_hours ?? null,
            due_offset_days: k.due_offset_days ?? null,
            assigned_to: k.assigned_to ?? null,
            assigned_team_id: k.assigned_team_id ?? null,
            task_status_id: k.task_status_id ?? null,
            checklist: (k.checklist ?? []).map((c, ci) => ({ item_name: requiredText(c.item_name, `${kp}.checklist[${ci}].item_name`), completed: c.completed ?? false })),
          };
        }),
      };
    }),
    statusMappings: (mappings ?? []).map((m) => m.task_status_id),
  };
  if (taskTotal > TEMPLATE_LIMITS.tasks) throw validation(`${path}.phases`, `a template holds at most ${TEMPLATE_LIMITS.tasks} tasks (got ${taskTotal})`);
  if (itemTotal > TEMPLATE_LIMITS.checklistItems) throw validation(`${path}.phases`, `a template holds at most ${TEMPLATE_LIMITS.checklistItems} checklist items (got ${itemTotal})`);
  const seen = new Set<string>();
  tree.statusMappings.forEach((id, i) => {
    if (seen.has(id)) throw validation(`${path}.status_mappings[${i}].task_status_id`, `status '${id}' is listed twice`);
    seen.add(id);
  });
  await checkTreeRefs(db, actor.tenant, tree, path);
  return tree;
}

async function checkTreeRefs(db: Executor, tenant: string, tree: TemplateTree, path: string): Promise<void> {
  const tasks = tree.phases.flatMap((p, pi) => p.tasks.map((k, ki) => ({ k, at: `${path}.phases[${pi}].tasks[${ki}]` })));
  const statuses = [...new Set([...tree.statusMappings, ...tasks.flatMap(({ k }) => (k.task_status_id ? [k.task_status_id] : []))])];
  const users = [...new Set(tasks.flatMap(({ k }) => (k.assigned_to ? [k.assigned_to] : [])))];
  const teams = [...new Set(tasks.flatMap(({ k }) => (k.assigned_team_id ? [k.assigned_team_id] : [])))];
  const found = await existingRefs(db, tenant, { statuses, users, teams });
  tree.statusMappings.forEach((id, i) => {
    if (!found.statuses.has(id)) throw validation(`${path}.status_mappings[${i}].task_status_id`, `no task status '${id}'`);
  });
  const mapped = new Set(tree.statusMappings);
  for (const { k, at } of tasks) {
    if (k.task_status_id !== null) {
      if (!found.statuses.has(k.task_status_id)) throw validation(`${at}.task_status_id`, `no task status '${k.task_status_id}'`);
      if (mapped.size > 0 && !mapped.has(k.task_status_id)) throw validation(`${at}.task_status_id`, `status '${k.task_status_id}' is not among the template's status_mappings`);
    }
    if (k.assigned_to !== null && !found.users.has(k.assigned_to)) throw validation(`${at}.assigned_to`, `no active internal user '${k.assigned_to}'`);
    if (k.assigned_team_id !== null && !found.teams.has(k.assigned_team_id)) throw validation(`${at}.assigned_team_id`, `no team '${k.assigned_team_id}'`);
  }
}
