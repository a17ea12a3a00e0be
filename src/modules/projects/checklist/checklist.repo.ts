import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ProjectTaskChecklistItemsTable } from '../../../platform/db/schema.projects.ts';
import { defineList } from '../../../platform/http/list.ts';

export type ChecklistItemRow = Selectable<ProjectTaskChecklistItemsTable>;

const items = (db: Executor, tenant: string) => db.selectFrom('project_task_checklist_items').selectAll().where('tenant', '=', tenant);

/** A task's checklist in position order; ties break on checklist_item_id. */
export function checklistList(db: Executor, tenant: string, taskId: string) {
  return defineList({
    from: db.selectFrom('project_task_checklist_items').where('tenant', '=', tenant).where('task_id', '=', taskId),
    page: items(db, tenant).where('task_id', '=', taskId),
    sorts: { position: ['position'] },
    defaultSort: 'position',
    defaultOrder: 'asc',
    tieBreaker: 'checklist_item_id',
    updatedAt: 'updated_at',
  });
}

export async function findChecklistItem(db: Executor, tenant: string, itemId: string): Promise<ChecklistItemRow | undefined> {
  return items(db, tenant).where('checklist_item_id', '=', itemId).executeTakeFirst();
}

export async function countChecklist(db: Executor, tenant: string, taskId: string): Promise<number> {
  const row = await db.selectFrom('project_task_checklist_items').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', tenant).where('task_id', '=', taskId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertChecklistItem(db: Executor, row: Insertable<ProjectTaskChecklistItemsTable>): Promise<void> {
  await db.insertInto('project_task_checklist_items').values(row).execute();
}

export async function updateChecklistItem(db: Executor, tenant: string, itemId: string, set: Updateable<ProjectTaskChecklistItemsTable>): Promise<void> {
  await db.updateTable('project_task_checklist_items').set(set).where('tenant', '=', tenant).where('checklist_item_id', '=', itemId).execute();
}

export async function deleteChecklistItem(db: Executor, tenant: string, itemId: string): Promise<void> {
  await db.deleteFrom('project_task_checklist_items').where('tenant', '=', tenant).where('checklist_item_id', '=', itemId).execute();
}

/** Shifts positions of the task's items in [from, to] by `by`. */
export async function shiftChecklist(db: Executor, tenant: string, taskId: string, from: number, to: number, by: 1 | -1): Promise<void> {
  await db
    .updateTable('project_task_checklist_items')
    .set({ position: sql<number>`position + ${by}` })
    .where('tenant', '=', tenant)
    .where('task_id', '=', taskId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}
