import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { suppressFields } from '../tickets.schemas.ts';

export const Comment = Type.Object({
  comment_id: Id,
  ticket_id: Id,
  comment_text: Type.String({ description: 'Markdown' }),
  is_internal: Type.Boolean({ description: 'Internal notes are never shown to client-portal users' }),
  author_type: Type.Union([Type.Literal('internal'), Type.Literal('client')], { description: 'internal: a team member; client: a client-portal user' }),
  author_user_id: Nullable(Type.String({ format: 'uuid', description: 'Null once the author\'s user is deleted' })),
  author_name: Nullable(Type.String({ description: 'First and last name (the username when both are empty)' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Comment = Static<typeof Comment>;

export const CreateCommentBody = Type.Object(
  {
    comment_text: Type.String({ minLength: 1, maxLength: 10_000, description: 'Markdown; trimmed, not blank' }),
    is_internal: Type.Optional(Type.Boolean({ default: false, description: 'An internal note; client-portal keys cannot write one' })),
    ...suppressFields,
  },
  { additionalProperties: false },
);
export type CreateCommentBody = Static<typeof CreateCommentBody>;

export const COMMENT_SORT_FIELDS = ['created_at'] as const;
export const ListCommentsQuery = listQuery(COMMENT_SORT_FIELDS, {
  is_internal: Type.Optional(Type.Boolean({ description: 'Only internal notes (true) or only public comments (false)' })),
});
export type ListCommentsQuery = Static<typeof ListCommentsQuery>;

export const CommentParams = Type.Object({ ticketId: Id, commentId: Id }, { additionalProperties: false });

export const CommentResponse = dataOf(Comment);
export const CommentListResponse = listOf(Comment);
