import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../../../platform/db/schema.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import {
  CommitmentListResponse,
  CommitmentParams,
  CommitmentResponse,
  CreateCommitmentBody,
  ListCommitmentsQuery,
  UpdateCommitmentBody,
} from './commitments.schemas.ts';
import { createCommitmentsService, type CommitmentsService } from './commitments.service.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const CLOSED = 'A won or lost opportunity keeps its commitments readable but refuses changes (409).';

/** Promises made while working a deal: open ones block the win until resolved or declined. */
export const commitmentsRoutes = (service: CommitmentsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/opportunities/:id/commitments', {
    schema: {
      operationId: 'listOpportunityCommitments',
      tags,
      summary: "List an opportunity's commitments (oldest first by made_at)",
      params: IdParams,
      querystring: ListCommitmentsQuery,
      response: { 200: CommitmentListResponse },
    },
    config: { permission: 'opportunity:read' },
  }, (req) => service.list(req.actor, req.params.id, req.query));

  app.post('/opportunities/:id/commitments', {
    schema: {
      operationId: 'createOpportunityCommitment',
      tags,
      summary: 'Record a commitment made to the client; it starts open and must be resolved or declined before the deal is won',
      description: `made_by is the caller. ${CLOSED}`,
      params: IdParams,
      querystring: NoQuery,
      body: CreateCommitmentBody,
      response: { 201: CommitmentResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => {
    const commitment = await service.create(req.actor, req.params.id, req.body);
    reply.code(201).header('Location', `/api/v1/opportunities/${req.params.id}/commitments/${commitment.commitment_id}`);
    return { data: commitment };
  });

  app.put('/opportunities/:id/commitments/:commitmentId', {
    schema: {
      operationId: 'updateOpportunityCommitment',
      tags,
      summary: 'Edit or resolve a commitment (quote_line, agreement_line and project_task need resolution_ref_id; open and declined take none: 422)',
      description: `A commitment of another opportunity is a 404. ${CLOSED}`,
      params: CommitmentParams,
      querystring: NoQuery,
      body: UpdateCommitmentBody,
      response: { 200: CommitmentResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req) => ({ data: await service.update(req.actor, req.params.id, req.params.commitmentId, req.body) }));

  app.delete('/opportunities/:id/commitments/:commitmentId', {
    schema: {
      operationId: 'deleteOpportunityCommitment',
      tags,
      summary: 'Delete a commitment',
      description: `A commitment of another opportunity is a 404. ${CLOSED}`,
      params: CommitmentParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'opportunity:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, req.params.commitmentId);
    return reply.code(204).send(null);
  });
};

/** The commitments routes with their service, for the area's route registration. */
export const commitmentsPlugin = (deps: { db: Kysely<DB> }): FastifyPluginAsyncTypebox => commitmentsRoutes(createCommitmentsService(deps));
