import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import type { ProjectsService } from './projects.service.ts';
import { CreateProjectBody, ListProjectsQuery, NoQuery, ProjectListResponse, ProjectParams, ProjectResponse, UpdateProjectBody } from './projects.schemas.ts';

const tags = ['Projects'];

export const projectsRoutes = (service: ProjectsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects', {
    schema: {
      operationId: 'listProjects',
      tags,
      summary: 'List projects (filter, search, sort — default project_number ascending — and paginate); client-portal keys see their own client\'s only',
      querystring: ListProjectsQuery,
      response: { 200: ProjectListResponse },
    },
    config: { permission: 'project:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/projects', {
    schema: {
      operationId: 'createProject',
      tags,
      summary: 'Create a project (project_name required); it starts without phases or tasks but with the tenant\'s task statuses mapped; emits project.created',
      querystring: NoQuery,
      body: CreateProjectBody,
      response: { 201: ProjectResponse },
    },
    config: { permission: 'project:create' },
  }, async (req, reply) => {
    const project = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/projects/${project.project_id}`);
    return withEtag(req, reply, project);
  });

  app.get('/projects/:id', {
    schema: { operationId: 'getProject', tags, summary: 'Get a project with its status, names, phase and task counts and actual hours', params: ProjectParams, querystring: NoQuery, response: { 200: ProjectResponse } },
    config: { permission: 'project:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/projects/:id', {
    schema: {
      operationId: 'updateProject',
      tags,
      summary: 'Update a project (partial; If-Match honoured); emits project.updated with changes, plus project.status_changed, project.closed and project.assigned as they apply',
      params: ProjectParams,
      querystring: NoQuery,
      body: UpdateProjectBody,
      response: { 200: ProjectResponse },
    },
    config: { permission: 'project:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/projects/:id', {
    schema: {
      operationId: 'deleteProject',
      tags,
      summary: 'Delete a project with its phases, tasks, checklists and comments (If-Match honoured); no public event',
      params: ProjectParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
