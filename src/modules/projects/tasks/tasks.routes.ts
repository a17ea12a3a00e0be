import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery, ProjectParams } from '../projects.schemas.ts';
import type { TasksService } from './tasks.service.ts';
import {
  CreateTaskBody,
  ListPhaseTasksQuery,
  ListProjectTasksQuery,
  PhaseTasksParams,
  TaskListResponse,
  TaskParams,
  TaskResponse,
  UpdateTaskBody,
} from './tasks.schemas.ts';

const tags = ['Project tasks'];

export const tasksRoutes = (service: TasksService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/:id/tasks', {
    schema: {
      operationId: 'listProjectTasks',
      tags,
      summary: 'List a project\'s tasks (filter by phase, status mapping, assignee, completion; default order: phase, then position)',
      params: ProjectParams,
      querystring: ListProjectTasksQuery,
      response: { 200: TaskListResponse },
    },
    config: { permission: 'project_task:read' },
  }, (req) => service.listOfProject(req.actor, req.params.id, req.query));

  app.get('/projects/:id/phases/:phaseId/tasks', {
    schema: { operationId: 'listPhaseTasks', tags, summary: 'List a phase\'s tasks in position order', params: PhaseTasksParams, querystring: ListPhaseTasksQuery, response: { 200: TaskListResponse } },
    config: { permission: 'project_task:read' },
  }, (req) => service.listOfPhase(req.actor, req.params.id, req.params.phaseId, req.query));

  app.post('/projects/:id/phases/:phaseId/tasks', {
    schema: {
      operationId: 'createPhaseTask',
      tags,
      summary: 'Create a task in a phase (task_name required; status defaults to the project\'s mapping of the default task status); emits project.task.created',
      params: PhaseTasksParams,
      querystring: NoQuery,
      body: CreateTaskBody,
      response: { 201: TaskResponse },
    },
    config: { permission: 'project_task:create' },
  }, async (req, reply) => {
    const task = await service.create(req.actor, req.params.id, req.params.phaseId, req.body);
    reply.code(201).header('Location', `/api/v1/projects/tasks/${task.task_id}`);
    return withEtag(req, reply, task);
  });

  app.get('/projects/tasks/:taskId', {
    schema: { operationId: 'getProjectTask', tags, summary: 'Get a project task with its status, names and checklist counts', params: TaskParams, querystring: NoQuery, response: { 200: TaskResponse } },
    config: { permission: 'project_task:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.taskId)));

  app.put('/projects/tasks/:taskId', {
    schema: {
      operationId: 'updateProjectTask',
      tags,
      summary: 'Update a task (partial; If-Match honoured; phase_id moves it within its project); emits project.task.updated with changes, plus status_changed, completed and assigned as they apply',
      params: TaskParams,
      querystring: NoQuery,
      body: UpdateTaskBody,
      response: { 200: TaskResponse },
    },
    config: { permission: 'project_task:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.taskId, req.body, ifMatchOf(req))));

  app.delete('/projects/tasks/:taskId', {
    schema: {
      operationId: 'deleteProjectTask',
      tags,
      summary: 'Delete a task with its checklist, comments and reactions (If-Match honoured)',
      params: TaskParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project_task:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.taskId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
