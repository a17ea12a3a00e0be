import type { Executor } from '../../../platform/db/executor.ts';
import { joined, listIdsOf } from '../../../platform/search/indexing.ts';
import type { SearchIndexer } from '../../../platform/search/types.ts';

/**
 * Articles: title, tags and the Markdown body. An article belongs to no client, so client-portal keys
 * never find it through search (they read their articles through /kb-articles); staff find every status.
 */
export const kbArticleSearchIndexer: SearchIndexer = {
  type: 'kb_article',
  async load(db: Executor, tenant, ids) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('kb_articles')
      .select(['article_id', 'title', 'slug', 'status', 'audience', 'article_type', 'tags', 'content', 'updated_at'])
      .where('tenant', '=', tenant)
      .where('article_id', 'in', ids)
      .execute();
    return rows.map((r) => ({
      type: 'kb_article' as const,
      id: r.article_id,
      title: r.title,
      subtitle: joined(r.status, r.audience, r.article_type.replace('_', '-'), r.tags.length ? r.tags.join(', ') : null),
      body: [r.tags.join(' '), r.content].filter(Boolean).join('\n'),
      url: `/kb-articles/${r.article_id}`,
      identifier: r.slug,
      isInternal: true,
      updatedAt: r.updated_at,
    }));
  },
  listIds: (db, tenant, afterId, limit) => listIdsOf(db, 'kb_articles', 'article_id', tenant, afterId, limit),
};
