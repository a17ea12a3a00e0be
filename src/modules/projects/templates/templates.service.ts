import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { toTemplate, toTemplateSummary } from './templates.mapper.ts';
import {
  clearTemplateTree,
  deleteTemplate,
  findTemplate,
  insertTemplate,
  insertTemplateTree,
  listCategories,
  loadTemplateContent,
  replaceStatusMappings,
  templateList,
  updateTemplateRow,
  type TemplateSummaryRow,
  type TemplateTree,
} from './templates.repo.ts';
import type { CreateTemplateBody, DuplicateTemplateBody, ListTemplatesQuery, Template, UpdateTemplateBody } from './templates.schemas.ts';
import { assertInternalActor, treeOf } from './templates.tree.ts';
import { treeFromProject } from './templates.from-project.ts';

/** The template if it exists in the actor's tenant; otherwise 404. */
export async function requireTemplate(db: Executor, actor: Actor, templateId: string, lock = false): Promise<TemplateSummaryRow> {
  const row = await findTemplate(db, actor.tenant, templateId, lock);
  if (!row) throw notFound('Project template', templateId);
  return row;
}

export async function templateView(db: Executor, tenant: string, templateId: string): Promise<Template> {
  const row = (await findTemplate(db, tenant, templateId))!;
  return toTemplate(row, await loadTemplateContent(db, tenant, templateId));
}

/** Inserts a template with its content and returns it as the API shows it. */
async function insertWhole(trx: Transaction<DB>, actor: Actor, head: { template_name: string; description: string | null; category: string | null }, tree: TemplateTree): Promise<Template> {
  const templateId = newId();
  const now = new Date();
  await insertTemplate(trx, { tenant: actor.tenant, template_id: templateId, ...head, created_by: actor.userId, created_at: now, updated_at: now });
  await insertTemplateTree(trx, actor.tenant, templateId, tree);
  return templateView(trx, actor.tenant, templateId);
}

export function createTemplatesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, query: ListTemplatesQuery) {
      assertInternalActor(actor);
      const filter = { category: query.category?.trim() || undefined, search: query.search?.trim() || undefined };
      return listPage(query, templateList(db, actor.tenant, filter), (rows) => rows.map(toTemplateSummary));
    },

    async categories(actor: Actor) {
      assertInternalActor(actor);
      return { data: await listCategories(db, actor.tenant) };
    },

    async get(actor: Actor, templateId: string): Promise<Template> {
      assertInternalActor(actor);
      await requireTemplate(db, actor, templateId);
      return templateView(db, actor.tenant, templateId);
    },

    /**
     * From an existing project (its phases, tasks, checklists and task statuses; dates become day
     * offsets from the project's start) or from the body's phases — exactly one of the two.
     */
    async create(actor: Actor, body: CreateTemplateBody): Promise<Template> {
      assertInternalActor(actor);
      if ((body.project_id === undefined) === (body.phases === undefined)) {
        throw validation('body', 'send project_id (copy a project) or phases (build from the body), exactly one of them');
      }
      if (body.project_id !== undefined && body.status_mappings !== undefined) {
        throw validation('body.status_mappings', 'a template copied from a project takes the project\'s task statuses; do not send status_mappings with project_id');
      }
      const head = {
        template_name: requiredText(body.template_name, 'body.template_name'),
        description: optionalText(body.description) ?? null,
        category: optionalText(body.category) ?? null,
      };
      return withTransaction(db, async (trx) => {
        const tree = body.project_id !== undefined
          ? await treeFromProject(trx, actor, body.project_id)
          : await treeOf(trx, actor, body.phases!, body.status_mappings);
        return insertWhole(trx, actor, head, tree);
      });
    },

    /** Name, description and category change in place; phases or status_mappings, when sent, replace the old ones whole. */
    async update(actor: Actor, templateId: string, body: UpdateTemplateBody, ifMatch?: string): Promise<Template> {
      assertInternalActor(actor);
      return withTransaction(db, async (trx) => {
        await requireTemplate(trx, actor, templateId, true);
        const { tenant } = actor;
        assertIfMatch(ifMatch, await templateView(trx, tenant, templateId));
        const patch = {
          template_name: body.template_name === undefined ? undefined : requiredText(body.template_name, 'body.template_name'),
          description: optionalText(body.description),
          category: optionalText(body.category),
        };
        const current = await loadTemplateContent(trx, tenant, templateId);
        const mappingIds = body.status_mappings?.map((m) => m.task_status_id);
        if (body.phases !== undefined) {
          // Task status hints are checked against the mappings the template will have after this write.
          const keptMappings = body.status_mappings ?? current.mappings.map((m) => ({ task_status_id: m.task_status_id }));
          const tree = await treeOf(trx, actor, body.phases, keptMappings);
          await clearTemplateTree(trx, tenant, templateId);
          await insertTemplateTree(trx, tenant, templateId, tree, true);
          await replaceStatusMappings(trx, tenant, templateId, tree.statusMappings);
        } else if (mappingIds !== undefined) {
          const tree = await treeOf(trx, actor, [], body.status_mappings);
          const mapped = new Set(tree.statusMappings);
          const stray = current.tasks.find((k) => k.task_status_id !== null && mapped.size > 0 && !mapped.has(k.task_status_id));
          if (stray) throw validation('body.status_mappings', `task '${stray.task_name}' uses status '${stray.task_status_id}'; keep it mapped or send phases too`);
          await replaceStatusMappings(trx, tenant, templateId, tree.statusMappings);
        }
        await updateTemplateRow(trx, tenant, templateId, { ...patch, updated_at: new Date() });
        return templateView(trx, tenant, templateId);
      });
    },

    async remove(actor: Actor, templateId: string, ifMatch?: string): Promise<void> {
      assertInternalActor(actor);
      await withTransaction(db, async (trx) => {
        await requireTemplate(trx, actor, templateId, true);
        assertIfMatch(ifMatch, await templateView(trx, actor.tenant, templateId));
        await deleteTemplate(trx, actor.tenant, templateId);
      });
    },

    /** A copy with the same content, named "<name> (Copy)" unless the body names it, used 0 times. */
    async duplicate(actor: Actor, templateId: string, body: DuplicateTemplateBody): Promise<Template> {
      assertInternalActor(actor);
      return withTransaction(db, async (trx) => {
        await requireTemplate(trx, actor, templateId);
        const source = await templateView(trx, actor.tenant, templateId);
        const tree: TemplateTree = {
          phases: source.phases.map((p) => ({
            phase_name: p.phase_name,
            description: p.description,
            start_offset_days: p.start_offset_days,
            duration_days: p.duration_days,
            tasks: p.tasks.map((k) => ({
              task_name: k.task_name,
              description: k.description,
              estimated_hours: k.estimated_hours,
              due_offset_days: k.due_offset_days,
              assigned_to: k.assigned_to,
              assigned_team_id: k.assigned_team_id,
              task_status_id: k.task_status_id,
              checklist: k.checklist.map((c) => ({ item_name: c.item_name, completed: c.completed })),
            })),
          })),
          statusMappings: source.status_mappings.map((m) => m.task_status_id),
        };
        const name = body.template_name === undefined ? `${source.template_name} (Copy)`.slice(0, 255) : requiredText(body.template_name, 'body.template_name');
        return insertWhole(trx, actor, { template_name: name, description: source.description, category: source.category }, tree);
      });
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
