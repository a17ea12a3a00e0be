import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery } from '../projects.schemas.ts';
import { TaskParams } from '../tasks/tasks.schemas.ts';
import type { ChecklistService } from './checklist.service.ts';
import {
  ChecklistItemParams,
  ChecklistItemResponse,
  ChecklistListResponse,
  CreateChecklistItemBody,
  ListChecklistQuery,
  UpdateChecklistItemBody,
} from './checklist.schemas.ts';

const tags = ['Project tasks'];

export const checklistRoutes = (service: ChecklistService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/tasks/:taskId/checklist', {
    schema: { operationId: 'listTaskChecklist', tags, summary: 'List a task\'s checklist items in position order', params: TaskParams, querystring: ListChecklistQuery, response: { 200: ChecklistListResponse } },
    config: { permission: 'project_task:read' },
  }, (req) => service.list(req.actor, req.params.taskId, req.query));

  app.post('/projects/tasks/:taskId/checklist', {
    schema: {
      operationId: 'createTaskChecklistItem',
      tags,
      summary: 'Add a checklist item (item_name; completed defaults to false; last unless position is sent)',
      params: TaskParams,
      querystring: NoQuery,
      body: CreateChecklistItemBody,
      response: { 201: ChecklistItemResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => {
    const item = await service.create(req.actor, req.params.taskId, req.body);
    reply.code(201).header('Location', `/api/v1/projects/tasks/${item.task_id}/checklist/${item.checklist_item_id}`);
    return withEtag(req, reply, item);
  });

  app.put('/projects/tasks/:taskId/checklist/:itemId', {
    schema: {
      operationId: 'updateTaskChecklistItem',
      tags,
      summary: 'Rename, tick or untick, or move a checklist item (partial; If-Match honoured)',
      params: ChecklistItemParams,
      querystring: NoQuery,
      body: UpdateChecklistItemBody,
      response: { 200: ChecklistItemResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.taskId, req.params.itemId, req.body, ifMatchOf(req))));

  app.delete('/projects/tasks/:taskId/checklist/:itemId', {
    schema: {
      operationId: 'deleteTaskChecklistItem',
      tags,
      summary: 'Delete a checklist item; the items after it move up one',
      params: ChecklistItemParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.taskId, req.params.itemId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
