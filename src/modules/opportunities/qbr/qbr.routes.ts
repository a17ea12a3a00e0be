import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { QbrService } from './qbr.service.ts';
import { CreateQbrOpportunitiesBody, QbrClientParams, QbrOpportunitiesResponse, QbrPackResponse, QbrYieldQuery, QbrYieldResponse } from './qbr.schemas.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** Quarterly business reviews: a client's trigger pack, acting on triggers, and the yield per client. */
export const qbrRoutes = (service: QbrService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/opportunities/qbr/yield', {
    schema: {
      operationId: 'getQbrYield',
      tags,
      summary: 'Per client: QBR triggers fired, opportunities created from them, and opportunities won',
      querystring: QbrYieldQuery,
      response: { 200: QbrYieldResponse },
    },
    config: { permission: 'opportunity:read' },
  }, (req) => service.yield(req.actor, req.query));

  app.get('/opportunities/qbr/:clientId', {
    schema: {
      operationId: 'getQbrPack',
      tags,
      summary: "A client's QBR trigger pack, computed live (renewals, aging assets, ticket trend, whitespace); reading it records nothing",
      params: QbrClientParams,
      querystring: NoQuery,
      response: { 200: QbrPackResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.pack(req.actor, req.params.clientId) }));

  app.post('/opportunities/qbr/:clientId/opportunities', {
    schema: {
      operationId: 'createQbrOpportunities',
      tags,
      summary: "Create one opportunity per chosen trigger of the client's pack (a trigger already acted on returns its opportunity); unknown keys are a 422",
      params: QbrClientParams,
      querystring: NoQuery,
      body: CreateQbrOpportunitiesBody,
      response: { 201: QbrOpportunitiesResponse },
    },
    config: { permission: 'opportunity:create' },
  }, async (req, reply) => {
    const data = await service.createOpportunities(req.actor, req.params.clientId, req.body.trigger_keys);
    return reply.code(201).send({ data });
  });
};
