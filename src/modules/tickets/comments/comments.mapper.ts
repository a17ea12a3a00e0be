import type { CommentData } from '../tickets.events.ts';
import type { CommentViewRow } from './comments.repo.ts';
import type { Comment } from './comments.schemas.ts';

export const toComment = (row: CommentViewRow): Comment => ({
  comment_id: row.comment_id,
  ticket_id: row.ticket_id,
  comment_text: row.comment_text,
  is_internal: row.is_internal,
  author_type: row.author_type,
  author_user_id: row.author_user_id,
  author_name: row.author_name,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

/** `data.comment` of ticket.comment.added. */
export const toCommentData = (row: CommentViewRow): CommentData => ({
  comment_id: row.comment_id,
  text: row.comment_text,
  author: row.author_name,
  author_id: row.author_user_id,
  author_type: row.author_type,
  is_internal: row.is_internal,
  timestamp: row.created_at.toISOString(),
});
