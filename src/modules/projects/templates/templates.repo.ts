import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { ProjectTemplatesTable } from '../../../platform/db/schema.project-templates.ts';
import { defineList } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';

export type TemplateRow = Selectable<ProjectTemplatesTable>;
export type TemplateSummaryRow = TemplateRow & { phase_count: number; task_count: number };

/** A template's content as written: validated and trimmed by the service, in order. */
export interface TemplateTree {
  phases: {
    phase_name: string;
    description: string | null;
    start_offset_days: number;
    duration_days: number | null;
    tasks: {
      task_name: string;
      description: string | null;
      estimated_hours: number | null;
      due_offset_days: number | null;
      assigned_to: string | null;
      assigned_team_id: string | null;
      task_status_id: string | null;
      checklist: { item_name: string; completed: boolean }[];
    }[];
  }[];
  /** Task status ids, in order; empty = the tenant's defaults at apply time. */
  statusMappings: string[];
}

const counts = (tenant: string) => ({
  phase_count: sql<number>`(select count(*)::int from project_template_phases p where p.tenant = ${tenant} and p.template_id = project_templates.template_id)`,
  task_count: sql<number>`(select count(*)::int from project_template_tasks k where k.tenant = ${tenant} and k.template_id = project_templates.template_id)`,
});

export async function findTemplate(db: Executor, tenant: string, templateId: string, lock = false): Promise<TemplateSummaryRow | undefined> {
  const c = counts(tenant);
  let q = db
    .selectFrom('project_templates')
    .selectAll()
    .select([c.phase_count.as('phase_count'), c.task_count.as('task_count')])
    .where('tenant', '=', tenant)
    .where('template_id', '=', templateId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export interface TemplateListFilter {
  category?: string;
  search?: string;
}

function filteredTemplates(db: Executor, tenant: string, f: TemplateListFilter) {
  let q = db.selectFrom('project_templates').where('tenant', '=', tenant);
  if (f.category !== undefined) q = q.where(sql<boolean>`lower(category) = lower(${f.category})`);
  if (f.search !== undefined) {
    const pattern = likePattern(f.search);
    q = q.where((eb) => eb.or([eb('template_name', 'ilike', pattern), eb('description', 'ilike', pattern)]));
  }
  return q;
}

/** Templates with their phase and task counts; ties break on template_id in the requested direction. */
export function templateList(db: Executor, tenant: string, f: TemplateListFilter) {
  const c = counts(tenant);
  return defineList({
    from: filteredTemplates(db, tenant, f),
    page: filteredTemplates(db, tenant, f).selectAll().select([c.phase_count.as('phase_count'), c.task_count.as('task_count')]),
    sorts: { template_name: [sql`lower(template_name)`], created_at: ['created_at'], updated_at: ['updated_at'], use_count: ['use_count'] },
    defaultSort: 'template_name',
    defaultOrder: 'asc',
    tieBreaker: 'template_id',
    updatedAt: 'updated_at',
  });
}

export async function insertTemplate(
  db: Executor,
  row: Pick<TemplateRow, 'tenant' | 'template_id' | 'template_name' | 'description' | 'category' | 'created_by'> & { created_at: Date; updated_at: Date },
): Promise<void> {
  await db.insertInto('project_templates').values(row).execute();
}

export async function updateTemplateRow(
  db: Executor,
  tenant: string,
  templateId: string,
  patch: Partial<Pick<TemplateRow, 'template_name' | 'description' | 'category'>> & { updated_at: Date },
): Promise<void> {
  await db.updateTable('project_templates').set(patch).where('tenant', '=', tenant).where('template_id', '=', templateId).execute();
}

export async function bumpUseCount(db: Executor, tenant: string, templateId: string): Promise<void> {
  await db
    .updateTable('project_templates')
    .set((eb) => ({ use_count: eb('use_count', '+', 1) }))
    .where('tenant', '=', tenant)
    .where('template_id', '=', templateId)
    .execute();
}

/** Deletes the template; its phases, tasks, checklist items and status mappings go with it (cascade). */
export async function deleteTemplate(db: Executor, tenant: string, templateId: string): Promise<void> {
  await db.deleteFrom('project_templates').where('tenant', '=', tenant).where('template_id', '=', templateId).execute();
}

/** Removes the template's phases (with their tasks and checklists) and status mappings. */
export async function clearTemplateTree(db: Executor, tenant: string, templateId: string): Promise<void> {
  await db.deleteFrom('project_template_phases').where('tenant', '=', tenant).where('template_id', '=', templateId).execute();
  await db.deleteFrom('project_template_status_mappings').where('tenant', '=', tenant).where('template_id', '=', templateId).execute();
}

/** Writes a template's content with one insert per table. */
export async function insertTemplateTree(db: Executor, tenant: string, templateId: string, tree: TemplateTree, phasesOnly = false): Promise<void> {
  const phases: object[] = [];
  const tasks: object[] = [];
  const items: object[] = [];
  tree.phases.forEach((p, pi) => {
    const template_phase_id = newId();
    phases.push({ tenant, template_phase_id, template_id: templateId, phase_name: p.phase_name, description: p.description, start_offset_days: p.start_offset_days, duration_days: p.duration_days, position: pi });
    p.tasks.forEach((k, ki) => {
      const template_task_id = newId();
      const { checklist, ...fields } = k;
      tasks.push({ tenant, template_task_id, template_id: templateId, template_phase_id, ...fields, position: ki });
      checklist.forEach((c, ci) => items.push({ tenant, template_item_id: newId(), template_id: templateId, template_task_id, item_name: c.item_name, completed: c.completed, position: ci }));
    });
  });
  if (phases.length > 0) await db.insertInto('project_template_phases').values(phases as never).execute();
  if (tasks.length > 0) await db.insertInto('project_template_tasks').values(tasks as never).execute();
  if (items.length > 0) await db.insertInto('project_template_checklist_items').values(items as never).execute();
  if (!phasesOnly && tree.statusMappings.length > 0) {
    await db
      .insertInto('project_template_status_mappings')
      .values(tree.statusMappings.map((task_status_id, position) => ({ tenant, template_id: templateId, task_status_id, position })))
      .execute();
  }
}

export async function replaceStatusMappings(db: Executor, tenant: string, templateId: string, statusIds: readonly string[]): Promise<void> {
  await db.deleteFrom('project_template_status_mappings').where('tenant', '=', tenant).where('template_id', '=', templateId).execute();
  if (statusIds.length > 0) {
    await db
      .insertInto('project_template_status_mappings')
      .values(statusIds.map((task_status_id, position) => ({ tenant, template_id: templateId, task_status_id, position })))
      .execute();
  }
}

/** Everything under one template, each level in order. */
export async function loadTemplateContent(db: Executor, tenant: string, templateId: string) {
  const [phases, tasks, items, mappings] = await Promise.all([
    db.selectFrom('project_template_phases').selectAll().where('tenant', '=', tenant).where('template_id', '=', templateId).orderBy('position').execute(),
    db.selectFrom('project_template_tasks').selectAll().where('tenant', '=', tenant).where('template_id', '=', templateId).orderBy('template_phase_id').orderBy('position').execute(),
    db.selectFrom('project_template_checklist_items').selectAll().where('tenant', '=', tenant).where('template_id', '=', templateId).orderBy('template_task_id').orderBy('position').execute(),
    db
      .selectFrom('project_template_status_mappings as m')
      .innerJoin('task_statuses as s', (j) => j.onRef('s.tenant', '=', 'm.tenant').onRef('s.task_status_id', '=', 'm.task_status_id'))
      .select(['m.task_status_id', 'm.position', 's.name as status_name', 's.is_closed'])
      .where('m.tenant', '=', tenant)
      .where('m.template_id', '=', templateId)
      .orderBy('m.position')
      .execute(),
  ]);
  return { phases, tasks, items, mappings };
}
export type TemplateContent = Awaited<ReturnType<typeof loadTemplateContent>>;

/** Distinct categories (as first spelled, regardless of case) with their template counts. */
export async function listCategories(db: Executor, tenant: string): Promise<{ category: string; template_count: number }[]> {
  const rows = await db
    .selectFrom('project_templates')
    .select([sql<string>`min(category)`.as('category'), sql<number>`count(*)::int`.as('template_count')])
    .where('tenant', '=', tenant)
    .where('category', 'is not', null)
    .groupBy(sql`lower(category)`)
    .orderBy(sql`lower(category)`)
    .execute();
  return rows.map((r) => ({ category: r.category, template_count: Number(r.template_count) }));
}

/** Which of these ids are task statuses, users (internal, active) and teams of the tenant. */
export async function existingRefs(db: Executor, tenant: string, ids: { statuses: string[]; users: string[]; teams: string[] }) {
  const [statuses, users, teams] = await Promise.all([
    ids.statuses.length === 0 ? [] : db.selectFrom('task_statuses').select('task_status_id as id').where('tenant', '=', tenant).where('task_status_id', 'in', ids.statuses).execute(),
    ids.users.length === 0 ? [] : db.selectFrom('users').select('user_id as id').where('tenant', '=', tenant).where('user_id', 'in', ids.users)
      .where('user_type', '!=', 'client').where('is_inactive', '=', false).execute(),
    ids.teams.length === 0 ? [] : db.selectFrom('teams').select('team_id as id').where('tenant', '=', tenant).where('team_id', 'in', ids.teams).execute(),
  ]);
  return { statuses: new Set(statuses.map((r) => r.id)), users: new Set(users.map((r) => r.id)), teams: new Set(teams.map((r) => r.id)) };
}
