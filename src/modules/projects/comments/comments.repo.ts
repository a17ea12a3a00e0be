import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { ProjectTaskCommentsTable } from '../../../platform/db/schema.projects.ts';
import { defineList } from '../../../platform/http/list.ts';
import { userDisplayName } from '../projects.repo.ts';

export type CommentRow = Selectable<ProjectTaskCommentsTable>;
export interface CommentViewRow extends CommentRow {
  author_name: string | null;
}
export interface ReactionRow {
  comment_id: string;
  user_id: string;
  emoji: string;
  created_at: Date;
}

const commentBase = (db: Executor, tenant: string) =>
  db
    .selectFrom('project_task_comments as c')
    .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'c.tenant').onRef('u.user_id', '=', 'c.author_user_id'))
    .selectAll('c')
    .select(userDisplayName('u').as('author_name'))
    .where('c.tenant', '=', tenant);

/** A task's comments, oldest first by default (ties on comment_id). The count never joins the authors. */
export function commentList(db: Executor, tenant: string, taskId: string) {
  return defineList({
    from: db.selectFrom('project_task_comments as c').where('c.tenant', '=', tenant).where('c.task_id', '=', taskId),
    page: commentBase(db, tenant).where('c.task_id', '=', taskId),
    sorts: { created_at: ['c.created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'asc',
    tieBreaker: 'c.comment_id',
    updatedAt: 'c.updated_at',
  });
}

export async function findComment(db: Executor, tenant: string, commentId: string): Promise<CommentViewRow | undefined> {
  return commentBase(db, tenant).where('c.comment_id', '=', commentId).executeTakeFirst();
}

export async function insertComment(db: Executor, row: Insertable<ProjectTaskCommentsTable>): Promise<void> {
  await db.insertInto('project_task_comments').values(row).execute();
}

export async function updateCommentText(db: Executor, tenant: string, commentId: string, text: string, at: Date): Promise<void> {
  await db.updateTable('project_task_comments').set({ comment_text: text, updated_at: at }).where('tenant', '=', tenant).where('comment_id', '=', commentId).execute();
}

export async function deleteComment(db: Executor, tenant: string, commentId: string): Promise<void> {
  await db.deleteFrom('project_task_comments').where('tenant', '=', tenant).where('comment_id', '=', commentId).execute();
}

export async function reactionsOf(db: Executor, tenant: string, commentIds: readonly string[]): Promise<ReactionRow[]> {
  if (commentIds.length === 0) return [];
  return db
    .selectFrom('project_task_comment_reactions')
    .select(['comment_id', 'user_id', 'emoji', 'created_at'])
    .where('tenant', '=', tenant)
    .where('comment_id', 'in', [...commentIds])
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
}

/** Adds the reaction, or removes it when the user already has it: true when it was added. */
export async function toggleReaction(db: Executor, tenant: string, commentId: string, userId: string, emoji: string): Promise<boolean> {
  const removed = await db
    .deleteFrom('project_task_comment_reactions')
    .where('tenant', '=', tenant)
    .where('comment_id', '=', commentId)
    .where('user_id', '=', userId)
    .where('emoji', '=', emoji)
    .executeTakeFirst();
  if (Number(removed.numDeletedRows) > 0) return false;
  await db
    .insertInto('project_task_comment_reactions')
    .values({ tenant, comment_id: commentId, user_id: userId, emoji })
    .onConflict((oc) => oc.columns(['tenant', 'comment_id', 'user_id', 'emoji']).doNothing())
    .execute();
  return true;
}
