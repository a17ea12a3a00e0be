import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../projects.schemas.ts';
import { TaskParams } from '../tasks/tasks.schemas.ts';
import type { TaskCommentsService } from './comments.service.ts';
import {
  CommentParams,
  CreateTaskCommentBody,
  ListCommentsQuery,
  ReactionBody,
  ReactionsResponse,
  TaskCommentListResponse,
  TaskCommentResponse,
  UpdateTaskCommentBody,
} from './comments.schemas.ts';

const tags = ['Project tasks'];

export const taskCommentsRoutes = (service: TaskCommentsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/tasks/:taskId/comments', {
    schema: { operationId: 'listTaskComments', tags, summary: 'List a task\'s comments, oldest first, each with its reaction summary', params: TaskParams, querystring: ListCommentsQuery, response: { 200: TaskCommentListResponse } },
    config: { permission: 'project_task:read' },
  }, (req) => service.list(req.actor, req.params.taskId, req.query));

  app.post('/projects/tasks/:taskId/comments', {
    schema: {
      operationId: 'createTaskComment',
      tags,
      summary: 'Comment on a task as the key\'s user (internal users only; client-portal keys get 403)',
      params: TaskParams,
      querystring: NoQuery,
      body: CreateTaskCommentBody,
      response: { 201: TaskCommentResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => {
    const comment = await service.create(req.actor, req.params.taskId, req.body);
    reply.code(201).header('Location', `/api/v1/projects/tasks/${comment.task_id}/comments/${comment.comment_id}`);
    return withEtag(req, reply, comment);
  });

  app.put('/projects/tasks/:taskId/comments/:commentId', {
    schema: {
      operationId: 'updateTaskComment',
      tags,
      summary: 'Edit a comment (its author only; others get 403; If-Match honoured)',
      params: CommentParams,
      querystring: NoQuery,
      body: UpdateTaskCommentBody,
      response: { 200: TaskCommentResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.taskId, req.params.commentId, req.body, ifMatchOf(req))));

  app.delete('/projects/tasks/:taskId/comments/:commentId', {
    schema: {
      operationId: 'deleteTaskComment',
      tags,
      summary: 'Delete a comment with its reactions (its author only; others get 403)',
      params: CommentParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.taskId, req.params.commentId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/projects/tasks/:taskId/comments/:commentId/reactions', {
    schema: {
      operationId: 'toggleTaskCommentReaction',
      tags,
      summary: 'Toggle the caller\'s reaction (one emoji or :short_code:) on a comment; returns the comment\'s reaction summary',
      params: CommentParams,
      querystring: NoQuery,
      body: ReactionBody,
      response: { 200: ReactionsResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req) => ({ data: (await service.react(req.actor, req.params.taskId, req.params.commentId, req.body)).reactions }));
};
