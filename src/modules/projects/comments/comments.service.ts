import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { AppError, notFound, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { isPortalActor } from '../../clients/index.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { requireVisibleTask } from '../tasks/tasks.writes.ts';
import { commentList, deleteComment, findComment, insertComment, reactionsOf, toggleReaction, updateCommentText, type CommentViewRow, type ReactionRow } from './comments.repo.ts';
import type { CreateTaskCommentBody, ListCommentsQuery, ReactionBody, ReactionSummary, TaskComment, UpdateTaskCommentBody } from './comments.schemas.ts';

const SHORTCODE = /^:[a-z0-9_+-]{1,30}:$/;
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** A reaction is one emoji grapheme (👍, 👍🏽, 🇩🇪, 1️⃣) or a short code (:thumbsup:); anything else is a 400. */
export function normalizeEmoji(raw: string): string {
  const emoji = raw.trim();
  if (SHORTCODE.test(emoji)) return emoji;
  if ([...graphemes.segment(emoji)].length === 1 && PICTOGRAPH.test(emoji)) return emoji;
  throw validation('body.emoji', 'must be a single emoji or a short code like :thumbsup:');
}

/** Per emoji, in the order each was first used: who reacted, and whether the caller did. */
export function summarize(rows: readonly ReactionRow[], me: string): ReactionSummary[] {
  const by = new Map<string, string[]>();
  for (const r of rows) by.set(r.emoji, [...(by.get(r.emoji) ?? []), r.user_id]);
  return [...by].map(([emoji, userIds]) => ({ emoji, count: userIds.length, user_ids: userIds, reacted_by_me: userIds.includes(me) }));
}

function toComment(row: CommentViewRow, reactions: ReactionSummary[]): TaskComment {
  return {
    comment_id: row.comment_id,
    task_id: row.task_id,
    comment_text: row.comment_text,
    author_user_id: row.author_user_id,
    author_name: row.author_name,
    reactions,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

async function view(db: Executor, actor: Actor, row: CommentViewRow): Promise<TaskComment> {
  return toComment(row, summarize(await reactionsOf(db, actor.tenant, [row.comment_id]), actor.userId));
}

/** Client-portal keys read a task's comments but do not write them: the discussion is the team's. */
function assertInternal(actor: Actor): void {
  if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Client-portal keys cannot comment on or react to project tasks');
}

async function requireComment(db: Executor, actor: Actor, taskId: string, commentId: string): Promise<CommentViewRow> {
  await requireVisibleTask(db, actor, taskId);
  const row = await findComment(db, actor.tenant, commentId);
  if (!row || row.task_id !== taskId) throw notFound('Comment', commentId);
  return row;
}

/** Only the author edits or deletes a comment (admins included: nobody rewrites another's words). */
function assertAuthor(actor: Actor, row: CommentViewRow): void {
  if (row.author_user_id !== actor.userId) throw new AppError('FORBIDDEN', 'Only the author of a comment may edit or delete it');
}

export function createTaskCommentsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async list(actor: Actor, taskId: string, query: ListCommentsQuery) {
      await requireVisibleTask(db, actor, taskId);
      return listPage(query, commentList(db, actor.tenant, taskId), async (rows) => {
        const reactions = await reactionsOf(db, actor.tenant, rows.map((r) => r.comment_id));
        return rows.map((r) => toComment(r, summarize(reactions.filter((x) => x.comment_id === r.comment_id), actor.userId)));
      });
    },

    async create(actor: Actor, taskId: string, body: CreateTaskCommentBody): Promise<TaskComment> {
      assertInternal(actor);
      const text = requiredText(body.comment_text, 'body.comment_text');
      return withTransaction(db, async (trx) => {
        await requireVisibleTask(trx, actor, taskId);
        const commentId = newId();
        const now = new Date();
        await insertComment(trx, { tenant: actor.tenant, comment_id: commentId, task_id: taskId, author_user_id: actor.userId, comment_text: text, created_at: now, updated_at: now });
        await syncSearch(trx, actor.tenant, 'project_task_comment', [commentId]);
        return view(trx, actor, (await findComment(trx, actor.tenant, commentId))!);
      });
    },

    async update(actor: Actor, taskId: string, commentId: string, body: UpdateTaskCommentBody, ifMatch?: string): Promise<TaskComment> {
      assertInternal(actor);
      const text = requiredText(body.comment_text, 'body.comment_text');
      return withTransaction(db, async (trx) => {
        const row = await requireComment(trx, actor, taskId, commentId);
        assertAuthor(actor, row);
        assertIfMatch(ifMatch, await view(trx, actor, row));
        if (text !== row.comment_text) {
          await updateCommentText(trx, actor.tenant, commentId, text, new Date());
          await syncSearch(trx, actor.tenant, 'project_task_comment', [commentId]);
        }
        return view(trx, actor, (await findComment(trx, actor.tenant, commentId))!);
      });
    },

    async remove(actor: Actor, taskId: string, commentId: string, ifMatch?: string): Promise<void> {
      assertInternal(actor);
      await withTransaction(db, async (trx) => {
        const row = await requireComment(trx, actor, taskId, commentId);
        assertAuthor(actor, row);
        assertIfMatch(ifMatch, await view(trx, actor, row));
        await deleteComment(trx, actor.tenant, commentId);
        await syncSearch(trx, actor.tenant, 'project_task_comment', [commentId]);
      });
    },

    /** Toggles the caller's reaction and returns the comment's reaction summary. */
    async react(actor: Actor, taskId: string, commentId: string, body: ReactionBody): Promise<{ added: boolean; reactions: ReactionSummary[] }> {
      assertInternal(actor);
      const emoji = normalizeEmoji(body.emoji);
      return withTransaction(db, async (trx) => {
        await requireComment(trx, actor, taskId, commentId);
        const added = await toggleReaction(trx, actor.tenant, commentId, actor.userId, emoji);
        return { added, reactions: summarize(await reactionsOf(trx, actor.tenant, [commentId]), actor.userId) };
      });
    },
  };
}

export type TaskCommentsService = ReturnType<typeof createTaskCommentsService>;
