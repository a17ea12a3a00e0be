import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { AutomationBuiltinTemplateUsageTable, AutomationTemplatesTable } from '../../../platform/db/schema.automation.ts';

export type TemplateRow = Selectable<AutomationTemplatesTable>;
export type BuiltinUsageRow = Selectable<AutomationBuiltinTemplateUsageTable>;

export async function findTemplate(db: Executor, tenant: string, id: string, lock = false): Promise<TemplateRow | undefined> {
  let q = db.selectFrom('automation_templates').selectAll().where('tenant', '=', tenant).where('template_id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Every template of the tenant (a tenant keeps at most TEMPLATES_PER_TENANT of them). */
export async function tenantTemplates(db: Executor, tenant: string): Promise<TemplateRow[]> {
  return db.selectFrom('automation_templates').selectAll().where('tenant', '=', tenant).execute();
}

export async function countTemplates(db: Executor, tenant: string): Promise<number> {
  const row = await db.selectFrom('automation_templates').select((eb) => eb.fn.countAll().as('n')).where('tenant', '=', tenant).$castTo<{ n: number | string }>().executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertTemplate(db: Executor, row: Insertable<AutomationTemplatesTable>): Promise<TemplateRow> {
  return db.insertInto('automation_templates').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function bumpTemplateUsage(db: Executor, tenant: string, id: string, at: Date): Promise<void> {
  await db
    .updateTable('automation_templates')
    .set((eb) => ({ usage_count: eb('usage_count', '+', 1), last_used_at: at }))
    .where('tenant', '=', tenant)
    .where('template_id', '=', id)
    .execute();
}

export async function builtinUsage(db: Executor, tenant: string, id?: string): Promise<BuiltinUsageRow[]> {
  let q = db.selectFrom('automation_builtin_template_usage').selectAll().where('tenant', '=', tenant);
  if (id) q = q.where('template_id', '=', id);
  return q.execute();
}

export async function bumpBuiltinUsage(db: Executor, tenant: string, id: string, at: Date): Promise<void> {
  await db
    .insertInto('automation_builtin_template_usage')
    .values({ tenant, template_id: id, usage_count: 1, last_used_at: at })
    .onConflict((oc) => oc.columns(['tenant', 'template_id']).doUpdateSet({ usage_count: sql`automation_builtin_template_usage.usage_count + 1`, last_used_at: at }))
    .execute();
}
