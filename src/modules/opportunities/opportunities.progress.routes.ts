import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withEtag } from '../../platform/http/etag.ts';
import type { OpportunityProgress } from './opportunities.progress.ts';
import {
  CompleteActionBody,
  CompleteStepBody,
  CorrectEvidenceBody,
  DeclareEvidenceBody,
  EvidenceListResponse,
  EvidenceParams,
  OpportunityParams,
  OpportunityResponse,
  StepListResponse,
  StepParams,
} from './opportunities.schemas.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** A deal's progress: next action and steps, and the append-only evidence log its stage derives from. */
export const opportunityProgressRoutes = (progress: OpportunityProgress): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/opportunities/:id/complete-action', {
    schema: {
      operationId: 'completeOpportunityAction',
      tags,
      summary: 'Finish the current next action: it is logged as an interaction and the replacement installed in the same transaction',
      params: OpportunityParams,
      querystring: NoQuery,
      body: CompleteActionBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => withEtag(req, reply, await progress.completeAction(req.actor, req.params.id, req.body)));

  app.get('/opportunities/:id/steps', {
    schema: {
      operationId: 'listOpportunitySteps',
      tags,
      summary: "The deal's steps in order: done ones, the current one (exactly one while open), skipped ones",
      params: OpportunityParams,
      querystring: NoQuery,
      response: { 200: StepListResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await progress.steps(req.actor, req.params.id) }));

  app.post('/opportunities/:id/steps/:stepId/complete', {
    schema: {
      operationId: 'completeOpportunityStep',
      tags,
      summary: 'Complete the current step with its replacement (and optionally declare a checkpoint); returns the steps',
      params: StepParams,
      querystring: NoQuery,
      body: CompleteStepBody,
      response: { 200: StepListResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req) => ({ data: await progress.completeStep(req.actor, req.params.id, req.params.stepId, req.body) }));

  app.get('/opportunities/:id/evidence', {
    schema: {
      operationId: 'listOpportunityEvidence',
      tags,
      summary: 'The evidence log, oldest first, corrected entries included (append-only)',
      params: OpportunityParams,
      querystring: NoQuery,
      response: { 200: EvidenceListResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await progress.evidence(req.actor, req.params.id) }));

  app.post('/opportunities/:id/evidence', {
    schema: {
      operationId: 'declareOpportunityEvidence',
      tags,
      summary: 'Declare a checkpoint reached (a lower one than the stage corrects the evidence above it); returns the deal with its derived stage',
      params: OpportunityParams,
      querystring: NoQuery,
      body: DeclareEvidenceBody,
      response: { 201: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => {
    const opportunity = await progress.declare(req.actor, req.params.id, req.body);
    reply.code(201);
    return withEtag(req, reply, opportunity);
  });

  app.post('/opportunities/:id/evidence/:evidenceId/correct', {
    schema: {
      operationId: 'correctOpportunityEvidence',
      tags,
      summary: 'Correct an active evidence entry with an audit note (it stays in the log); the stage is derived again',
      params: EvidenceParams,
      querystring: NoQuery,
      body: CorrectEvidenceBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => withEtag(req, reply, await progress.correct(req.actor, req.params.id, req.params.evidenceId, req.body)));
};
