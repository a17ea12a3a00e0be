import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery } from '../projects.schemas.ts';
import type { BulkService } from './bulk.service.ts';
import { BulkAssignBody, BulkResponse, BulkStatusBody, BulkUpdateBody } from './bulk.schemas.ts';

const tags = ['Projects'];
const ALL_OR_NOTHING = 'All or nothing in one transaction: if any project is missing, hidden or refuses the change, nothing changes and error.details lists every failing project ({project_id, code, error}). Each changed project emits the events a single PUT would.';

export const bulkRoutes = (service: BulkService): FastifyPluginAsyncTypebox => async (app) => {
  app.put('/projects/bulk-assign', {
    schema: {
      operationId: 'bulkAssignProjects',
      tags,
      summary: 'Assign up to 100 projects to a user and/or a team (null unassigns)',
      description: ALL_OR_NOTHING,
      querystring: NoQuery,
      body: BulkAssignBody,
      response: { 200: BulkResponse },
    },
    config: { permission: 'project:update' },
  }, async (req) => ({ data: await service.assign(req.actor, req.body) }));

  app.put('/projects/bulk-status', {
    schema: {
      operationId: 'bulkSetProjectStatus',
      tags,
      summary: 'Move up to 100 projects to one project status',
      description: ALL_OR_NOTHING,
      querystring: NoQuery,
      body: BulkStatusBody,
      response: { 200: BulkResponse },
    },
    config: { permission: 'project:update' },
  }, async (req) => ({ data: await service.setStatus(req.actor, req.body) }));

  app.put('/projects/bulk-update', {
    schema: {
      operationId: 'bulkUpdateProjects',
      tags,
      summary: 'Apply the same partial update (the fields of PUT /api/v1/projects/{id}) to up to 100 projects',
      description: ALL_OR_NOTHING,
      querystring: NoQuery,
      body: BulkUpdateBody,
      response: { 200: BulkResponse },
    },
    config: { permission: 'project:update' },
  }, async (req) => ({ data: await service.update(req.actor, req.body) }));
};
