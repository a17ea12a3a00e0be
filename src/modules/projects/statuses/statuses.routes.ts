import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { requireVisibleProject } from '../projects.rules.ts';
import { NoQuery, ProjectParams } from '../projects.schemas.ts';
import type { ProjectStatusesService } from './project-statuses.service.ts';
import { listStatusMappings } from './statuses.repo.ts';
import {
  CreateProjectStatusBody,
  ProjectStatusListResponse,
  ProjectStatusParams,
  ProjectStatusResponse,
  StatusMappingListResponse,
  toStatusMapping,
  UpdateProjectStatusBody,
} from './statuses.schemas.ts';

const tags = ['Projects'];

/** The tenant's project statuses (settings) and a project's task status mappings (read-only). */
export const statusesRoutes = (db: Kysely<DB>, service: ProjectStatusesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/project-statuses', {
    schema: { operationId: 'listProjectStatuses', tags, summary: 'List the tenant\'s project statuses in order', querystring: NoQuery, response: { 200: ProjectStatusListResponse } },
    config: { permission: 'project:read' },
  }, async (req) => ({ data: await service.list(req.actor) }));

  app.post('/project-statuses', {
    schema: {
      operationId: 'createProjectStatus',
      tags,
      summary: 'Add a project status (name unique regardless of case; is_default moves the default to it)',
      querystring: NoQuery,
      body: CreateProjectStatusBody,
      response: { 201: ProjectStatusResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    const status = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/project-statuses/${status.status_id}`);
    return withEtag(req, reply, status);
  });

  app.get('/project-statuses/:statusId', {
    schema: { operationId: 'getProjectStatus', tags, summary: 'Get a project status', params: ProjectStatusParams, querystring: NoQuery, response: { 200: ProjectStatusResponse } },
    config: { permission: 'project:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.statusId)));

  app.put('/project-statuses/:statusId', {
    schema: {
      operationId: 'updateProjectStatus',
      tags,
      summary: 'Rename, reorder, open/close or make default a project status (partial; If-Match honoured); the default stays open',
      params: ProjectStatusParams,
      querystring: NoQuery,
      body: UpdateProjectStatusBody,
      response: { 200: ProjectStatusResponse },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.statusId, req.body, ifMatchOf(req))));

  app.delete('/project-statuses/:statusId', {
    schema: {
      operationId: 'deleteProjectStatus',
      tags,
      summary: 'Delete a project status; the default or one in use by a project is a 409',
      params: ProjectStatusParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'settings:update' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.statusId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/projects/:id/task-status-mappings', {
    schema: {
      operationId: 'listProjectTaskStatusMappings',
      tags,
      summary: 'List the task statuses a project\'s tasks may take (read-only; every project gets the tenant\'s task statuses at creation)',
      params: ProjectParams,
      querystring: NoQuery,
      response: { 200: StatusMappingListResponse },
    },
    config: { permission: 'project:read' },
  }, async (req) => {
    await requireVisibleProject(db, req.actor, req.params.id);
    return { data: (await listStatusMappings(db, req.actor.tenant, req.params.id)).map(toStatusMapping) };
  });
};
