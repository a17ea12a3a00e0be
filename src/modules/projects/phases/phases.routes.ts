import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { NoQuery, ProjectParams } from '../projects.schemas.ts';
import type { PhasesService } from './phases.service.ts';
import { CreatePhaseBody, DeletePhaseQuery, ListPhasesQuery, PhaseListResponse, PhaseParams, PhaseResponse, UpdatePhaseBody } from './phases.schemas.ts';

const tags = ['Projects'];

export const phasesRoutes = (service: PhasesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/projects/:id/phases', {
    schema: { operationId: 'listProjectPhases', tags, summary: 'List a project\'s phases in position order', params: ProjectParams, querystring: ListPhasesQuery, response: { 200: PhaseListResponse } },
    config: { permission: 'project:read' },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.post('/projects/:id/phases', {
    schema: {
      operationId: 'createProjectPhase',
      tags,
      summary: 'Add a phase to a project (last, or at position with later phases moved down)',
      params: ProjectParams,
      querystring: NoQuery,
      body: CreatePhaseBody,
      response: { 201: PhaseResponse },
    },
    config: { permission: 'project:create' },
  }, async (req, reply) => {
    const phase = await service.create(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/projects/${phase.project_id}/phases/${phase.phase_id}`);
    return withEtag(req, reply, phase);
  });

  app.put('/projects/:id/phases/:phaseId', {
    schema: {
      operationId: 'updateProjectPhase',
      tags,
      summary: 'Update a phase (partial; If-Match honoured); a new position moves it and renumbers its siblings',
      params: PhaseParams,
      querystring: NoQuery,
      body: UpdatePhaseBody,
      response: { 200: PhaseResponse },
    },
    config: { permission: 'project:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.params.phaseId, req.body, ifMatchOf(req))));

  app.delete('/projects/:id/phases/:phaseId', {
    schema: {
      operationId: 'deleteProjectPhase',
      tags,
      summary: 'Delete a phase; one with tasks is a 409 unless force=true, which deletes its tasks too',
      params: PhaseParams,
      querystring: DeletePhaseQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'project:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, req.params.phaseId, { force: req.query.force, ifMatch: ifMatchOf(req) });
    return reply.code(204).send(null);
  });
};
