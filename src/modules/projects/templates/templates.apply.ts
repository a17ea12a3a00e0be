import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { createChecklistItemInTrx } from '../checklist/checklist.writes.ts';
import { createPhaseInTrx } from '../phases/phases.writes.ts';
import { toProject } from '../projects.mapper.ts';
import { findProjectView } from '../projects.repo.ts';
import type { Project } from '../projects.schemas.ts';
import { createProjectInTrx } from '../projects.writes.ts';
import { listStatusMappings } from '../statuses/statuses.repo.ts';
import type { CreateTaskBody } from '../tasks/tasks.schemas.ts';
import { createTaskInTrx } from '../tasks/tasks.writes.ts';
import { newId } from '../../../platform/ids.ts';
import { bumpUseCount, existingRefs, loadTemplateContent } from './templates.repo.ts';
import type { ApplyTemplateBody } from './templates.schemas.ts';
import { requireTemplate } from './templates.service.ts';
import { assertInternalActor } from './templates.tree.ts';

const DAY_MS = 86_400_000;
/** YYYY-MM-DD plus whole days (UTC calendar arithmetic, so no time zone shifts a date). */
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Makes the project's task statuses exactly the template's, in its order. Runs right after the project
 * is created (it has no tasks yet), so dropping a default mapping never strands a task.
 */
async function applyStatusMappings(trx: Transaction<DB>, tenant: string, projectId: string, statusIds: readonly string[]): Promise<void> {
  if (statusIds.length === 0) return;
  await trx.deleteFrom('project_task_status_mappings').where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
  await trx
    .insertInto('project_task_status_mappings')
    .values(statusIds.map((task_status_id, i) => ({ tenant, status_mapping_id: newId(), project_id: projectId, task_status_id, display_order: i + 1 })))
    .execute();
}

export type ApplyTemplate = (actor: Actor, templateId: string, body: ApplyTemplateBody) => Promise<Project>;

/**
 * Creates a project from a template inside the caller's transaction, through the same writes the REST
 * endpoints use, so project.created and one project.task.created per task go out and search is in sync.
 * With a start_date, each phase starts start_offset_days after it and lasts duration_days, tasks are due
 * due_offset_days after their phase's start, and the project ends with its last phase. Assignee hints
 * naming a user who is no longer an active internal user are dropped rather than failing the apply.
 * Another area (a won opportunity) calls this in its own transaction.
 */
export async function applyTemplateInTrx(trx: Transaction<DB>, actor: Actor, templateId: string, body: ApplyTemplateBody, ctx: { publicUrl: string }): Promise<Project> {
  assertInternalActor(actor);
  const { tenant } = actor;
  // Locked so a concurrent PATCH cannot swap the content half-way through.
  await requireTemplate(trx, actor, templateId, true);
  const content = await loadTemplateContent(trx, tenant, templateId);
  const start = body.start_date ?? null;
  const phaseDates = content.phases.map((p) => {
    if (start === null) return { start_date: null, end_date: null };
    const s = addDays(start, p.start_offset_days);
    return { start_date: s, end_date: p.duration_days === null ? null : addDays(s, p.duration_days - 1) };
  });
  const ends = phaseDates.map((d) => d.end_date).filter((d): d is string => d !== null).sort();
  const end = ends.length > 0 && ends[ends.length - 1]! >= (start ?? '') ? ends[ends.length - 1]! : null;

  const project = await createProjectInTrx(trx, actor, {
    project_name: body.project_name,
    description: body.description,
    client_id: body.client_id,
    assigned_to: body.assigned_to,
    start_date: start,
    end_date: end,
  }, ctx);
  const projectId = project.project_id;
  await applyStatusMappings(trx, tenant, projectId, content.mappings.map((m) => m.task_status_id));
  const mappingOf = new Map((await listStatusMappings(trx, tenant, projectId)).map((m) => [m.task_status_id, m.status_mapping_id]));

  const option = body.assignment_option ?? 'primary';
  const hints = await existingRefs(trx, tenant, {
    statuses: [],
    users: option === 'none' ? [] : [...new Set(content.tasks.flatMap((k) => (k.assigned_to ? [k.assigned_to] : [])))],
    teams: option === 'all' ? [...new Set(content.tasks.flatMap((k) => (k.assigned_team_id ? [k.assigned_team_id] : [])))] : [],
  });
  const itemsOf = new Map<string, typeof content.items>();
  for (const i of content.items) itemsOf.set(i.template_task_id, [...(itemsOf.get(i.template_task_id) ?? []), i]);

  for (const [pi, p] of content.phases.entries()) {
    const phase = await createPhaseInTrx(trx, actor, projectId, { phase_name: p.phase_name, description: p.description, ...phaseDates[pi]! });
    const phaseStart = phaseDates[pi]!.start_date;
    for (const k of content.tasks.filter((t) => t.template_phase_id === p.template_phase_id)) {
      const task: CreateTaskBody = {
        task_name: k.task_name,
        description: k.description,
        estimated_hours: k.estimated_hours === null ? null : Number(k.estimated_hours),
        due_date: phaseStart !== null && k.due_offset_days !== null ? addDays(phaseStart, k.due_offset_days) : null,
      };
      const mappingId = k.task_status_id === null ? undefined : mappingOf.get(k.task_status_id);
      if (mappingId !== undefined) task.status_mapping_id = mappingId;
      if (k.assigned_to !== null && hints.users.has(k.assigned_to)) task.assigned_to = k.assigned_to;
      if (k.assigned_team_id !== null && hints.teams.has(k.assigned_team_id)) task.assigned_team_id = k.assigned_team_id;
      const created = await createTaskInTrx(trx, actor, projectId, phase.phase_id, task, ctx);
      for (const item of itemsOf.get(k.template_task_id) ?? []) {
        await createChecklistItemInTrx(trx, actor, created.task_id, { item_name: item.item_name, completed: item.completed });
      }
    }
  }
  await bumpUseCount(trx, tenant, templateId);
  return toProject((await findProjectView(trx, tenant, projectId))!);
}

/** The apply endpoint: applyTemplateInTrx in a transaction of its own. */
export function createApplyTemplate(deps: { db: Kysely<DB>; publicUrl: string }): ApplyTemplate {
  const { db, publicUrl } = deps;
  return (actor, templateId, body) => withTransaction(db, (trx) => applyTemplateInTrx(trx, actor, templateId, body, { publicUrl }));
}
