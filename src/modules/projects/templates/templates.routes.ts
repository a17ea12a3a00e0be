import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { ProjectResponse } from '../projects.schemas.ts';
import type { TemplatesService } from './templates.service.ts';
import type { ApplyTemplate } from './templates.apply.ts';
import {
  ApplyTemplateBody,
  CategoriesResponse,
  CreateTemplateBody,
  DuplicateTemplateBody,
  ListTemplatesQuery,
  NoQuery,
  TemplateListResponse,
  TemplateParams,
  TemplateResponse,
  UpdateTemplateBody,
} from './templates.schemas.ts';

const tags = ['Project templates'];
const location = (id: string) => `/api/projects/templates/${id}`;

/** Registered under `/api` (the spec places templates outside /api/v1); the API-key hook applies all the same. */
export const templatesRoutes = (service: TemplatesService, apply: ApplyTemplate): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/templates', {
    schema: {
      operationId: 'listProjectTemplates',
      tags,
      summary: 'List project templates (filter by category, search name and description; default sort template_name ascending)',
      querystring: ListTemplatesQuery,
      response: { 200: TemplateListResponse },
    },
    config: { permission: 'project:read' },
  }, (req) => service.list(req.actor, req.query));

  app.get('/projects/templates/categories', {
    schema: {
      operationId: 'listProjectTemplateCategories',
      tags,
      summary: 'Distinct template categories (regardless of case) with how many templates each holds',
      querystring: NoQuery,
      response: { 200: CategoriesResponse },
    },
    config: { permission: 'project:read' },
  }, (req) => service.categories(req.actor));

  app.post('/projects/templates', {
    schema: {
      operationId: 'createProjectTemplate',
      tags,
      summary: 'Create a template from an existing project (project_id) or from phases, tasks and checklists in the body',
      querystring: NoQuery,
      body: CreateTemplateBody,
      response: { 201: TemplateResponse },
    },
    config: { permission: 'project:create' },
  }, async (req, reply) => {
    const template = await service.create(req.actor, req.body);
    reply.code(201).header('Location', location(template.template_id));
    return withEtag(req, reply, template);
  });

  app.get('/projects/templates/:templateId', {
    schema: {
      operationId: 'getProjectTemplate',
      tags,
      summary: 'Get a template with its phases, tasks, checklist items and task statuses',
      params: TemplateParams,
      querystring: NoQuery,
      response: { 200: TemplateResponse },
    },
    config: { permission: 'project:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.templateId)));

  app.patch('/projects/templates/:templateId', {
    schema: {
      operationId: 'updateProjectTemplate',
      tags,
      summary: 'Update a template (partial): name, description, category; phases or status_mappings replace the current ones whole. Honours If-Match',
      params: TemplateParams,
      querystring: NoQuery,
      body: UpdateTemplateBody,
      response: { 200: TemplateResponse },
    },
    config: { permission: 'project:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.templateId, req.body, ifMatchOf(req))));

  app.delete('/projects/templates/:templateId', {
    schema: {
      operationId: 'deleteProjectTemplate',
      tags,
      summary: 'Delete a template with its content (projects made from it stay as they are). Honours If-Match',
      params: TemplateParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.templateId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/projects/templates/:templateId/apply', {
    schema: {
      operationId: 'applyProjectTemplate',
      tags,
      summary: 'Create a project from a template in one transaction: phases dated from start_date, tasks, checklists and task statuses; emits project.created and project.task.created per task',
      params: TemplateParams,
      querystring: NoQuery,
      body: ApplyTemplateBody,
      response: { 201: ProjectResponse },
    },
    config: { permission: 'project:create' },
  }, async (req, reply) => {
    const project = await apply(req.actor, req.params.templateId, req.body);
    reply.code(201).header('Location', `/api/v1/projects/${project.project_id}`);
    return withEtag(req, reply, project);
  });

  app.post('/projects/templates/:templateId/duplicate', {
    schema: {
      operationId: 'duplicateProjectTemplate',
      tags,
      summary: 'Copy a template with all its content; the copy is named "<name> (Copy)" unless template_name is sent, and starts with use_count 0',
      params: TemplateParams,
      querystring: NoQuery,
      body: DuplicateTemplateBody,
      response: { 201: TemplateResponse },
    },
    config: { permission: 'project:create' },
    // The body is optional here: a bare POST duplicates under the default name.
    preValidation: async (req) => {
      req.body ??= {};
    },
  }, async (req, reply) => {
    const template = await service.duplicate(req.actor, req.params.templateId, req.body);
    reply.code(201).header('Location', location(template.template_id));
    return withEtag(req, reply, template);
  });
};
