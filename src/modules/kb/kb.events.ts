import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** The article lifecycle as events (announced: listed for webhooks, payloads carry ids and what changed). */
export const KB_ARTICLE_EVENT_TYPES = announced('kb_article', [
  ['kb_article.created', 'A knowledge-base article was created (as a draft)'],
  ['kb_article.updated', "An article's metadata or content changed"],
  ['kb_article.published', 'An article was published'],
  ['kb_article.archived', 'An article was archived'],
  ['kb_article.deleted', 'An article was deleted'],
]);

export type KbArticleChange = 'created' | 'updated' | 'published' | 'archived' | 'deleted';

export function emitArticleEvent(trx: Transaction<DB>, tenant: string, change: KbArticleChange, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  return emit(trx, { tenant, event_type: `kb_article.${change}`, aggregate_type: 'kb_article', aggregate_id: id, payload: { article_id: id, ...extra } });
}
