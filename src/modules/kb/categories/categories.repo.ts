import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { KbCategoriesTable } from '../../../platform/db/schema.kb.ts';
import { defineList } from '../../../platform/http/list.ts';

export type KbCategoryRow = Selectable<KbCategoriesTable> & { article_count: number; child_count: number };

function categoryView(db: Executor, tenant: string) {
  return db
    .selectFrom('kb_categories as c')
    .where('c.tenant', '=', tenant)
    .selectAll('c')
    .select((eb) => [
      eb
        .selectFrom('kb_articles as a')
        .whereRef('a.tenant', '=', 'c.tenant')
        .whereRef('a.category_id', '=', 'c.category_id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('article_count'),
      eb
        .selectFrom('kb_categories as k')
        .whereRef('k.tenant', '=', 'c.tenant')
        .whereRef('k.parent_id', '=', 'c.category_id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('child_count'),
    ]);
}

/** pg returns count(*) as a string, PGlite as a number. */
export const toCounted = <R extends { article_count: number | string | null; child_count: number | string | null }>(r: R) => ({
  ...r,
  article_count: Number(r.article_count ?? 0),
  child_count: Number(r.child_count ?? 0),
});

/** One category of the tenant with its counts (the article service checks `category_id` with it); `lock` takes the row FOR UPDATE. */
export async function findKbCategory(db: Executor, tenant: string, id: string, lock = false): Promise<KbCategoryRow | undefined> {
  let q = categoryView(db, tenant).where('c.category_id', '=', id);
  if (lock) q = q.forUpdate('c');
  const row = await q.executeTakeFirst();
  return row ? toCounted(row) : undefined;
}

/** The sibling (same parent) with this name, any case. */
export async function findKbCategoryIdByName(db: Executor, tenant: string, parentId: string | null, name: string): Promise<string | undefined> {
  let q = db
    .selectFrom('kb_categories')
    .select('category_id')
    .where('tenant', '=', tenant)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase());
  q = parentId === null ? q.where('parent_id', 'is', null) : q.where('parent_id', '=', parentId);
  const row = await q.executeTakeFirst();
  return row?.category_id;
}

/** The category and every ancestor of it, walking up the parents (a union: terminates even on bad data). */
export async function kbCategoryAncestry(db: Executor, tenant: string, id: string): Promise<string[]> {
  const rows = await sql<{ category_id: string }>`
    with recursive up (category_id, parent_id) as (
      select category_id, parent_id from kb_categories where tenant = ${tenant} and category_id = ${id}
      union
      select c.category_id, c.parent_id from kb_categories c join up on c.category_id = up.parent_id where c.tenant = ${tenant}
    )
    select category_id from up
  `.execute(db);
  return rows.rows.map((r) => r.category_id);
}

/** Serialises moves within one tenant's tree for the transaction, so two concurrent moves cannot close a cycle. */
export async function lockKbCategoryTree(db: Executor, tenant: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`kb_categories:${tenant}`}))`.execute(db);
}

export function kbCategoryList(db: Executor, tenant: string, f: { parentId?: string | null; search?: string }) {
  let from = db.selectFrom('kb_categories as c').where('c.tenant', '=', tenant);
  let page = categoryView(db, tenant);
  if (f.parentId === null) {
    from = from.where('c.parent_id', 'is', null);
    page = page.where('c.parent_id', 'is', null);
  } else if (f.parentId !== undefined) {
    from = from.where('c.parent_id', '=', f.parentId);
    page = page.where('c.parent_id', '=', f.parentId);
  }
  if (f.search) {
    from = from.where('c.name', 'ilike', likePattern(f.search));
    page = page.where('c.name', 'ilike', likePattern(f.search));
  }
  return defineList({
    from,
    page,
    sorts: {
      display_order: ['c.display_order', sql`lower(c.name)`],
      name: [sql`lower(c.name)`],
      created_at: ['c.created_at'],
      updated_at: ['c.updated_at'],
    },
    defaultSort: 'display_order',
    defaultOrder: 'asc',
    tieBreaker: 'c.category_id',
    updatedAt: 'c.updated_at',
  });
}

export async function insertKbCategory(db: Executor, row: Insertable<KbCategoriesTable>): Promise<void> {
  await db.insertInto('kb_categories').values(row).execute();
}

export async function updateKbCategory(db: Executor, tenant: string, id: string, set: Updateable<KbCategoriesTable>): Promise<void> {
  await db.updateTable('kb_categories').set(set).where('tenant', '=', tenant).where('category_id', '=', id).execute();
}

export async function deleteKbCategory(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('kb_categories').where('tenant', '=', tenant).where('category_id', '=', id).execute();
}
