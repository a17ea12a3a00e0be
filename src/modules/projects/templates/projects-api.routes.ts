import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ListProjectsQuery, ProjectListResponse } from '../projects.schemas.ts';
import type { ProjectsService } from '../projects.service.ts';

/** GET /api/projects: the spec names the project list outside /api/v1 too; it is the same list as GET /api/v1/projects. */
export const projectsApiRoutes = (service: ProjectsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects', {
    schema: {
      operationId: 'listProjectsOutsideV1',
      tags: ['Projects'],
      summary: 'List projects: the same query and response as GET /api/v1/projects (kept at this path because the spec names it)',
      querystring: ListProjectsQuery,
      response: { 200: ProjectListResponse },
    },
    config: { permission: 'project:read' },
  }, (req) => service.list(req.actor, req.query));
};
