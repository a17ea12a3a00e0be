import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { TicketCategoriesTable } from '../../../platform/db/schema.ts';
import { defineList } from '../../../platform/http/list.ts';

export type CategoryRow = Selectable<TicketCategoriesTable>;

export async function findCategory(db: Executor, tenant: string, categoryId: string, lock = false): Promise<CategoryRow | undefined> {
  let q = db.selectFrom('ticket_categories').selectAll().where('tenant', '=', tenant).where('category_id', '=', categoryId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** A sibling with the same name (same board and parent, regardless of case). */
export async function findSiblingByName(db: Executor, tenant: string, boardId: string | null, parentId: string | null, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('ticket_categories')
    .select('category_id')
    .where('tenant', '=', tenant)
    .where('board_id', boardId === null ? 'is' : '=', boardId)
    .where('parent_category_id', parentId === null ? 'is' : '=', parentId)
    .where(sql<string>`lower(category_name)`, '=', sql<string>`lower(${name})`)
    .executeTakeFirst();
  return row?.category_id;
}

export async function insertCategory(db: Executor, row: Insertable<TicketCategoriesTable>): Promise<void> {
  await db.insertInto('ticket_categories').values(row).execute();
}

export async function updateCategory(db: Executor, tenant: string, categoryId: string, set: Updateable<TicketCategoriesTable>): Promise<void> {
  await db.updateTable('ticket_categories').set(set).where('tenant', '=', tenant).where('category_id', '=', categoryId).execute();
}

/** Subcategories follow their parent's board. */
export async function setSubcategoriesBoard(db: Executor, tenant: string, parentId: string, boardId: string | null, now: Date): Promise<void> {
  await db
    .updateTable('ticket_categories')
    .set({ board_id: boardId, updated_at: now })
    .where('tenant', '=', tenant)
    .where('parent_category_id', '=', parentId)
    .execute();
}

export async function deleteCategory(db: Executor, tenant: string, categoryId: string): Promise<void> {
  await db.deleteFrom('ticket_categories').where('tenant', '=', tenant).where('category_id', '=', categoryId).execute();
}

export async function countSubcategories(db: Executor, tenant: string, categoryId: string): Promise<number> {
  const row = await db
    .selectFrom('ticket_categories')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant', '=', tenant)
    .where('parent_category_id', '=', categoryId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Tickets filed under the category or one of its subcategories (as category or as subcategory). */
export async function countTicketsInCategoryTree(db: Executor, tenant: string, categoryId: string): Promise<number> {
  const row = await db
    .selectFrom('tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant', '=', tenant)
    .where((eb) =>
      eb.or([
        eb('category_id', '=', categoryId),
        eb('subcategory_id', '=', categoryId),
        eb('subcategory_id', 'in', eb.selectFrom('ticket_categories').select('category_id').where('tenant', '=', tenant).where('parent_category_id', '=', categoryId)),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface CategoryListFilter {
  boardId?: string;
  parentId?: string;
  topLevel?: boolean;
  search?: string;
}

function filteredCategories(db: Executor, tenant: string, f: CategoryListFilter) {
  let q = db.selectFrom('ticket_categories as c').where('c.tenant', '=', tenant);
  if (f.boardId !== undefined) q = q.where('c.board_id', '=', f.boardId);
  if (f.parentId !== undefined) q = q.where('c.parent_category_id', '=', f.parentId);
  if (f.topLevel !== undefined) q = q.where('c.parent_category_id', f.topLevel ? 'is' : 'is not', null);
  if (f.search !== undefined) q = q.where('c.category_name', 'ilike', likePattern(f.search));
  return q;
}

/** Ties break on category_id in the requested direction. */
export function categoryList(db: Executor, tenant: string, f: CategoryListFilter) {
  return defineList({
    from: filteredCategories(db, tenant, f),
    page: filteredCategories(db, tenant, f).selectAll('c'),
    sorts: { category_name: [sql`lower(c.category_name)`], created_at: ['c.created_at'], updated_at: ['c.updated_at'] },
    defaultSort: 'category_name',
    defaultOrder: 'asc',
    tieBreaker: 'c.category_id',
    updatedAt: 'c.updated_at',
  });
}
