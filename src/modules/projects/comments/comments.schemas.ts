import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';

export const ReactionSummary = Type.Object({
  emoji: Type.String(),
  count: Type.Integer(),
  user_ids: Type.Array(Id),
  reacted_by_me: Type.Boolean(),
});
export type ReactionSummary = Static<typeof ReactionSummary>;

export const TaskComment = Type.Object({
  comment_id: Id,
  task_id: Id,
  comment_text: Type.String(),
  author_user_id: Nullable(Type.String({ format: 'uuid', description: 'The user whose API key wrote it (null once that user is deleted)' })),
  author_name: Nullable(Type.String()),
  reactions: Type.Array(ReactionSummary, { description: 'One entry per emoji, in the order they were first used' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TaskComment = Static<typeof TaskComment>;

const text = Type.String({ minLength: 1, maxLength: 10_000, description: 'Markdown; trimmed, not blank' });
export const CreateTaskCommentBody = Type.Object({ comment_text: text }, { additionalProperties: false });
export type CreateTaskCommentBody = Static<typeof CreateTaskCommentBody>;
export const UpdateTaskCommentBody = Type.Object({ comment_text: text }, { additionalProperties: false });
export type UpdateTaskCommentBody = Static<typeof UpdateTaskCommentBody>;

export const ReactionBody = Type.Object(
  {
    emoji: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'One emoji (a single grapheme such as 👍 or 👍🏽, flags and keycaps included) or a short code like :thumbsup: (lowercase letters, digits, _ + -, up to 30)',
    }),
  },
  { additionalProperties: false },
);
export type ReactionBody = Static<typeof ReactionBody>;

export const ListCommentsQuery = listQuery(['created_at'] as const, {});
export type ListCommentsQuery = Static<typeof ListCommentsQuery>;

export const CommentParams = Type.Object({ taskId: Id, commentId: Id }, { additionalProperties: false });

export const TaskCommentResponse = dataOf(TaskComment);
export const TaskCommentListResponse = listOf(TaskComment);
export const ReactionsResponse = Type.Object({ data: Type.Array(ReactionSummary) });
