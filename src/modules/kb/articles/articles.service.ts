import slugify from '@sindresorhus/slugify';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { KbArticleType, KbAudience, KbStatus } from '../../../platform/db/schema.kb.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { AppError, conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { isPortalActor } from '../../clients/index.ts';
import { ticketResolution } from '../../tickets/index.ts';
import { findKbCategory } from '../categories/categories.repo.ts';
import { emitArticleEvent } from '../kb.events.ts';
import { findKbTemplate } from '../templates/templates.repo.ts';
import { renderMarkdown } from './articles.markdown.ts';
import {
  articleList,
  countView,
  deleteArticle,
  findArticle,
  findRevision,
  insertArticle,
  insertRevision,
  revisionList,
  slugsLike,
  slugTaken,
  updateArticle,
  type ArticleRow,
} from './articles.repo.ts';
import type { ArticleContent, CreateKbArticleBody, KbArticle, ListKbArticlesQuery, UpdateKbArticleBody } from './articles.schemas.ts';

const DAY_MS = 86_400_000;

export function toKbArticle(r: ArticleRow): KbArticle {
  return {
    article_id: r.article_id,
    title: r.title,
    slug: r.slug,
    article_type: r.article_type,
    audience: r.audience,
    status: r.status,
    category_id: r.category_id,
    tags: r.tags,
    review_cycle_days: r.review_cycle_days,
    next_review_due: r.next_review_due,
    revision: r.revision,
    view_count: r.view_count,
    source_ticket_id: r.source_ticket_id,
    template_id: r.template_id,
    published_at: iso(r.published_at),
    archived_at: iso(r.archived_at),
    created_by: r.created_by,
    updated_by: r.updated_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** What a client-portal key may read: published articles written for clients or the public. */
const portalMaySee = (r: Pick<ArticleRow, 'status' | 'audience'>): boolean => r.status === 'published' && r.audience !== 'internal';

function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
}

/** Next review: `days` after publication (or after now, for an unpublished article). */
function reviewDue(days: number | null, from: Date | null): string | null {
  return days === null ? null : utcDate(new Date((from ?? new Date()).getTime() + days * DAY_MS));
}

async function assertCategory(db: Executor, tenant: string, id: string | null | undefined, path: string): Promise<void> {
  if (id && !(await findKbCategory(db, tenant, id))) throw validation(path, `no knowledge-base category '${id}' in this tenant`);
}

/**
 * A slug for the title that no article of the tenant holds: `base`, else `base-2`, `base-3`, … Concurrent
 * creates with one title serialise on a transaction lock keyed by the base, so each picks a different one.
 */
async function freeSlug(trx: Transaction<DB>, tenant: string, title: string): Promise<string> {
  const base = slugify(title).slice(0, 180).replace(/-+$/, '') || 'article';
  await sql`select pg_advisory_xact_lock(hashtextextended(${`kb-slug:${tenant}:${base}`}, 0))`.execute(trx);
  const taken = new Set(await slugsLike(trx, tenant, base));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** The status moves the spec's States table allows; anything else is a 409 naming the current status. */
const MOVES: Record<'publish' | 'archive', readonly KbStatus[]> = { publish: ['draft', 'archived'], archive: ['published'] };

/** Knowledge-base articles: metadata, a revised Markdown body, and the draft → published → archived lifecycle. */
export function createKbArticlesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** The article, or 404 (a client-portal key sees only published client/public articles). */
  async function row(ex: Executor, actor: Actor, id: string, lock = false): Promise<ArticleRow> {
    const found = await findArticle(ex, actor.tenant, id, lock);
    if (!found || (isPortalActor(actor) && !portalMaySee(found))) throw notFound('Knowledge-base article', id);
    return found;
  }

  async function written(trx: Transaction<DB>, actor: Actor, id: string): Promise<KbArticle> {
    await syncSearch(trx, actor.tenant, 'kb_article', [id]);
    return toKbArticle(await row(trx, actor, id));
  }

  /** Stores a new body as the next revision. */
  async function revise(trx: Transaction<DB>, actor: Actor, current: Pick<ArticleRow, 'article_id' | 'revision'>, content: string): Promise<number> {
    const revision = current.revision + 1;
    await insertRevision(trx, { tenant: actor.tenant, article_id: current.article_id, revision, content, created_by: actor.userId });
    await updateArticle(trx, actor.tenant, current.article_id, { content, revision, updated_by: actor.userId, updated_at: new Date() });
    return revision;
  }

  async function create(
    trx: Transaction<DB>,
    actor: Actor,
    fields: { title: string; slug?: string; article_type: KbArticleType; audience: KbAudience; category_id: string | null; tags: string[]; review_cycle_days: number | null; template_id: string | null; source_ticket_id: string | null },
    content: string,
  ): Promise<KbArticle> {
    const title = requiredText(fields.title, 'body.title');
    await assertCategory(trx, actor.tenant, fields.category_id, 'body.category_id');
    let slug = fields.slug;
    if (slug !== undefined) {
      if (await slugTaken(trx, actor.tenant, slug)) throw conflict(`Slug '${slug}' is already used by another article`, { slug });
    } else {
      slug = await freeSlug(trx, actor.tenant, title);
    }
    const id = newId();
    await insertArticle(trx, {
      tenant: actor.tenant,
      article_id: id,
      title,
      slug,
      article_type: fields.article_type,
      audience: fields.audience,
      category_id: fields.category_id,
      tags: normalizeTags(fields.tags),
      review_cycle_days: fields.review_cycle_days,
      next_review_due: reviewDue(fields.review_cycle_days, null),
      source_ticket_id: fields.source_ticket_id,
      template_id: fields.template_id,
      created_by: actor.userId,
      updated_by: actor.userId,
    });
    if (content !== '') await revise(trx, actor, { article_id: id, revision: 0 }, content);
    await emitArticleEvent(trx, actor.tenant, 'created', id, { status: 'draft', audience: fields.audience, source_ticket_id: fields.source_ticket_id, template_id: fields.template_id });
    return written(trx, actor, id);
  }

  async function move(actor: Actor, id: string, to: 'publish' | 'archive'): Promise<KbArticle> {
    return withTransaction(db, async (trx) => {
      const current = await row(trx, actor, id, true);
      if (!MOVES[to].includes(current.status)) {
        throw new AppError('CONFLICT', `The article is ${current.status}; ${to === 'publish' ? 'only a draft or archived article can be published' : 'only a published article can be archived'}`, { status: current.status });
      }
      const now = new Date();
      if (to === 'publish') {
        if (current.content.trim() === '') throw unprocessable('The article has no content; write it with PUT /content before publishing', { revision: current.revision });
        await updateArticle(trx, actor.tenant, id, { status: 'published', published_at: now, archived_at: null, next_review_due: reviewDue(current.review_cycle_days, now), updated_by: actor.userId, updated_at: now });
        await emitArticleEvent(trx, actor.tenant, 'published', id, { from_status: current.status, revision: current.revision });
      } else {
        await updateArticle(trx, actor.tenant, id, { status: 'archived', archived_at: now, updated_by: actor.userId, updated_at: now });
        await emitArticleEvent(trx, actor.tenant, 'archived', id, { revision: current.revision });
      }
      return written(trx, actor, id);
    });
  }

  return {
    list(actor: Actor, query: ListKbArticlesQuery) {
      const list = articleList(db, actor.tenant, {
        status: query.status,
        audience: query.audience,
        type: query.article_type,
        categoryId: query.category_id,
        tag: query.tag?.trim() || undefined,
        search: query.search?.trim() || undefined,
        reviewDue: query.review_due,
        portal: isPortalActor(actor),
      });
      return listPage(query, list, (rows) => rows.map(toKbArticle));
    },

    get: async (actor: Actor, id: string): Promise<KbArticle> => toKbArticle(await row(db, actor, id)),

    /** A draft; from a template, its content is revision 1 and its type the default. */
    async create(actor: Actor, body: CreateKbArticleBody): Promise<KbArticle> {
      return withTransaction(db, async (trx) => {
        const template = body.template_id ? await findKbTemplate(trx, actor.tenant, body.template_id) : undefined;
        if (body.template_id && !template) throw validation('body.template_id', `no knowledge-base template '${body.template_id}' in this tenant`);
        return create(trx, actor, {
          title: body.title,
          slug: body.slug,
          article_type: (body.article_type as KbArticleType | undefined) ?? template?.article_type ?? 'how_to',
          audience: (body.audience as KbAudience | undefined) ?? 'internal',
          category_id: body.category_id ?? null,
          tags: body.tags ?? [],
          review_cycle_days: body.review_cycle_days ?? null,
          template_id: template?.template_id ?? null,
          source_ticket_id: null,
        }, template?.content ?? '');
      });
    },

    async update(actor: Actor, id: string, body: UpdateKbArticleBody, ifMatch?: string): Promise<KbArticle> {
      return withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toKbArticle(current));
        if (body.slug !== undefined && body.slug !== current.slug && (await slugTaken(trx, actor.tenant, body.slug, id))) {
          throw conflict(`Slug '${body.slug}' is already used by another article`, { slug: body.slug });
        }
        if (body.category_id !== undefined) await assertCategory(trx, actor.tenant, body.category_id, 'body.category_id');
        await updateArticle(trx, actor.tenant, id, {
          title: body.title === undefined ? undefined : requiredText(body.title, 'body.title'),
          slug: body.slug,
          article_type: body.article_type,
          audience: body.audience,
          category_id: body.category_id,
          tags: body.tags === undefined ? undefined : normalizeTags(body.tags),
          review_cycle_days: body.review_cycle_days,
          next_review_due: body.review_cycle_days === undefined ? undefined : reviewDue(body.review_cycle_days, current.published_at),
          updated_by: actor.userId,
          updated_at: new Date(),
        });
        await emitArticleEvent(trx, actor.tenant, 'updated', id, { changed_fields: Object.keys(body).sort() });
        return written(trx, actor, id);
      });
    },

    /** Removes the article, its content and revisions, and its search document: no trace is left. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toKbArticle(current));
        await deleteArticle(trx, actor.tenant, id);
        await emitArticleEvent(trx, actor.tenant, 'deleted', id, { status: current.status });
        await syncSearch(trx, actor.tenant, 'kb_article', [id]);
      });
    },

    /** The body (a read counts as a view); `html` renders the Markdown and sanitises it. */
    async content(actor: Actor, id: string, format: 'markdown' | 'html' = 'markdown'): Promise<ArticleContent> {
      const current = await row(db, actor, id);
      await countView(db, actor.tenant, id);
      return { content: format === 'html' ? renderMarkdown(current.content) : current.content, format, revision: current.revision };
    },

    /** A new body, kept as the next revision; the same body again changes nothing. */
    async putContent(actor: Actor, id: string, content: string): Promise<ArticleContent> {
      return withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        if (content === current.content) return { content, format: 'markdown' as const, revision: current.revision };
        const revision = await revise(trx, actor, current, content);
        await emitArticleEvent(trx, actor.tenant, 'updated', id, { changed_fields: ['content'], revision });
        await syncSearch(trx, actor.tenant, 'kb_article', [id]);
        return { content, format: 'markdown' as const, revision };
      });
    },

    async revisions(actor: Actor, id: string, query: { page?: number; limit?: number }) {
      await row(db, actor, id);
      return listPage(query, revisionList(db, actor.tenant, id), (rows) => rows.map((r) => ({ revision: r.revision, length: Number(r.length), created_by: r.created_by, created_at: iso(r.created_at) })));
    },

    async revision(actor: Actor, id: string, revision: number) {
      await row(db, actor, id);
      const found = await findRevision(db, actor.tenant, id, revision);
      if (!found) throw notFound('Revision', String(revision));
      return { revision: found.revision, content: found.content, created_by: found.created_by, created_at: iso(found.created_at) };
    },

    publish: (actor: Actor, id: string) => move(actor, id, 'publish'),
    archive: (actor: Actor, id: string) => move(actor, id, 'archive'),

    /** A troubleshooting draft holding the ticket's problem and resolution, linked back to the ticket. */
    async fromTicket(actor: Actor, ticketId: string, body: { title?: string; audience?: string; category_id?: string | null }): Promise<KbArticle> {
      return withTransaction(db, async (trx) => {
        const ticket = await ticketResolution(trx, actor, ticketId);
        const content = [
          `# ${ticket.title}`,
          '',
          `_From ticket ${ticket.ticket_number}._`,
          '',
          '## Problem',
          '',
          ticket.description?.trim() || '_The ticket has no description._',
          '',
          '## Resolution',
          '',
          ticket.resolution?.trim() || '_No resolution was recorded on the ticket._',
          '',
        ].join('\n');
        return create(trx, actor, {
          title: body.title ?? ticket.title,
          article_type: 'troubleshooting',
          audience: (body.audience as KbAudience | undefined) ?? 'internal',
          category_id: body.category_id ?? null,
          tags: [],
          review_cycle_days: null,
          template_id: null,
          source_ticket_id: ticket.ticket_id,
        }, content);
      });
    },
  };
}

export type KbArticlesService = ReturnType<typeof createKbArticlesService>;
