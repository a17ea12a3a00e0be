import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { KbArticleRevisionsTable, KbArticlesTable, KbArticleType, KbAudience, KbStatus } from '../../../platform/db/schema.kb.ts';
import { defineList } from '../../../platform/http/list.ts';

export type ArticleRow = Selectable<KbArticlesTable>;

export async function findArticle(db: Executor, tenant: string, id: string, lock = false): Promise<ArticleRow | undefined> {
  let q = db.selectFrom('kb_articles').selectAll().where('tenant', '=', tenant).where('article_id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function slugTaken(db: Executor, tenant: string, slug: string, except?: string): Promise<boolean> {
  let q = db.selectFrom('kb_articles').select('article_id').where('tenant', '=', tenant).where('slug', '=', slug);
  if (except) q = q.where('article_id', '!=', except);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Slugs of the tenant that are `base` or `base-<n>`: the free suffix is picked from these (slugs hold only a-z, 0-9 and -, nothing LIKE reads as a wildcard). */
export async function slugsLike(db: Executor, tenant: string, base: string): Promise<string[]> {
  const rows = await db
    .selectFrom('kb_articles')
    .select('slug')
    .where('tenant', '=', tenant)
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return rows.map((r) => r.slug);
}

export interface ArticleFilter {
  status?: KbStatus;
  audience?: KbAudience;
  type?: KbArticleType;
  categoryId?: string;
  tag?: string;
  search?: string;
  reviewDue?: boolean;
  /** Client-portal scope: published articles for clients or the public only. */
  portal?: boolean;
}

export function articleList(db: Executor, tenant: string, f: ArticleFilter) {
  const base = () => {
    let q = db.selectFrom('kb_articles as k').where('k.tenant', '=', tenant);
    if (f.portal) q = q.where('k.status', '=', 'published').where('k.audience', 'in', ['client', 'public']);
    if (f.status) q = q.where('k.status', '=', f.status);
    if (f.audience) q = q.where('k.audience', '=', f.audience);
    if (f.type) q = q.where('k.article_type', '=', f.type);
    if (f.categoryId) q = q.where('k.category_id', '=', f.categoryId);
    if (f.tag) q = q.where(sql<boolean>`k.tags @> array[${f.tag.toLowerCase()}]::text[]`);
    if (f.search) {
      const p = likePattern(f.search);
      q = q.where((eb) => eb.or([eb('k.title', 'ilike', p), eb(sql<string>`array_to_string(k.tags, ' ')`, 'ilike', p)]));
    }
    if (f.reviewDue === true) q = q.where(sql<boolean>`k.next_review_due <= current_date`);
    if (f.reviewDue === false) q = q.where(sql<boolean>`(k.next_review_due is null or k.next_review_due > current_date)`);
    return q;
  };
  return defineList({
    from: base(),
    page: base().selectAll('k'),
    sorts: {
      title: [sql`lower(k.title)`],
      created_at: ['k.created_at'],
      updated_at: ['k.updated_at'],
      published_at: [{ by: 'k.published_at', nullsLast: true }],
      view_count: ['k.view_count'],
      next_review_due: [{ by: 'k.next_review_due', nullsLast: true }],
    },
    defaultSort: 'title',
    defaultOrder: 'asc',
    tieBreaker: 'k.article_id',
    updatedAt: 'k.updated_at',
  });
}

export async function insertArticle(db: Executor, row: Insertable<KbArticlesTable>): Promise<void> {
  await db.insertInto('kb_articles').values(row).execute();
}

export async function updateArticle(db: Executor, tenant: string, id: string, set: Updateable<KbArticlesTable>): Promise<void> {
  await db.updateTable('kb_articles').set(set).where('tenant', '=', tenant).where('article_id', '=', id).execute();
}

export async function deleteArticle(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('kb_articles').where('tenant', '=', tenant).where('article_id', '=', id).execute();
}

export async function countView(db: Executor, tenant: string, id: string): Promise<void> {
  await db.updateTable('kb_articles').set((eb) => ({ view_count: eb('view_count', '+', 1) })).where('tenant', '=', tenant).where('article_id', '=', id).execute();
}

export async function insertRevision(db: Executor, row: Insertable<KbArticleRevisionsTable>): Promise<void> {
  await db.insertInto('kb_article_revisions').values(row).execute();
}

export async function findRevision(db: Executor, tenant: string, id: string, revision: number): Promise<Selectable<KbArticleRevisionsTable> | undefined> {
  return db.selectFrom('kb_article_revisions').selectAll().where('tenant', '=', tenant).where('article_id', '=', id).where('revision', '=', revision).executeTakeFirst();
}

export function revisionList(db: Executor, tenant: string, id: string) {
  const base = () => db.selectFrom('kb_article_revisions as r').where('r.tenant', '=', tenant).where('r.article_id', '=', id);
  return defineList({
    from: base(),
    page: base().select(['r.revision', 'r.created_by', 'r.created_at', sql<number>`char_length(r.content)`.as('length')]),
    sorts: { revision: ['r.revision'] },
    defaultSort: 'revision',
    defaultOrder: 'desc',
    tieBreaker: 'r.revision',
    // A revision is never edited (an edit is the next revision).
    updatedAt: 'r.created_at',
  });
}
