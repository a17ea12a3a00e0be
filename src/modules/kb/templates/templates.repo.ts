import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import { BUILTIN_KB_TEMPLATES } from '../../../platform/db/builtin-kb-templates.ts';
import type { KbArticleType, KbTemplatesTable } from '../../../platform/db/schema.kb.ts';
import { defineList } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';

export type KbTemplateRow = Selectable<KbTemplatesTable>;

/**
 * One template of the tenant (the article service checks `template_id` with it). `lock`: 'update' for a
 * write to the template, 'share' for a writer that only needs it to stay (an article made from it).
 */
export async function findKbTemplate(db: Executor, tenant: string, id: string, lock?: 'update' | 'share'): Promise<KbTemplateRow | undefined> {
  let q = db.selectFrom('kb_templates').selectAll().where('tenant', '=', tenant).where('template_id', '=', id);
  if (lock === 'update') q = q.forUpdate();
  if (lock === 'share') q = q.forShare();
  return q.executeTakeFirst();
}

export async function findKbTemplateIdByName(db: Executor, tenant: string, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('kb_templates')
    .select('template_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
  return row?.template_id;
}

export function kbTemplateList(db: Executor, tenant: string, f: { articleType?: KbArticleType; isBuiltin?: boolean; search?: string }) {
  let from = db.selectFrom('kb_templates as t').where('t.tenant', '=', tenant);
  if (f.articleType) from = from.where('t.article_type', '=', f.articleType);
  if (f.isBuiltin !== undefined) from = from.where('t.is_builtin', '=', f.isBuiltin);
  if (f.search) from = from.where('t.name', 'ilike', likePattern(f.search));
  return defineList({
    from,
    page: from.selectAll('t'),
    sorts: { name: [sql`lower(t.name)`], created_at: ['t.created_at'], updated_at: ['t.updated_at'] },
    defaultSort: 'name',
    defaultOrder: 'asc',
    tieBreaker: 't.template_id',
    updatedAt: 't.updated_at',
  });
}

export async function insertKbTemplate(db: Executor, row: Insertable<KbTemplatesTable>): Promise<void> {
  await db.insertInto('kb_templates').values(row).execute();
}

export async function updateKbTemplate(db: Executor, tenant: string, id: string, set: Updateable<KbTemplatesTable>): Promise<void> {
  await db.updateTable('kb_templates').set(set).where('tenant', '=', tenant).where('template_id', '=', id).execute();
}

export async function deleteKbTemplate(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('kb_templates').where('tenant', '=', tenant).where('template_id', '=', id).execute();
}

/** Articles made from the template forget it (they keep their content); returns how many. */
export async function detachKbTemplateFromArticles(db: Executor, tenant: string, id: string): Promise<number> {
  const res = await db.updateTable('kb_articles').set({ template_id: null }).where('tenant', '=', tenant).where('template_id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** A tenant's built-in templates (the same list the kb migration gave existing tenants). */
export async function insertBuiltinKbTemplates(db: Executor, tenant: string): Promise<void> {
  await db
    .insertInto('kb_templates')
    .values(BUILTIN_KB_TEMPLATES.map((t) => ({ tenant, template_id: newId(), name: t.name, description: t.description, article_type: t.article_type, content: t.content, is_builtin: true })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}
