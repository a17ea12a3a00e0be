import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../platform/http/empty-body.ts';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import type { OpportunityClose } from './opportunities.close.ts';
import type { OpportunityQuotes } from './opportunities.quotes.ts';
import {
  CreateOpportunityBody,
  ListOpportunitiesQuery,
  LoseBody,
  OpportunityListResponse,
  OpportunityParams,
  OpportunityResponse,
  QuoteLinkParams,
  UpdateOpportunityBody,
  WinBody,
} from './opportunities.schemas.ts';
import type { OpportunitiesService } from './opportunities.service.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const NoBody = Type.Object({}, { additionalProperties: false });

/** The deal itself: list, create, read, edit, delete; win and lose; quote links. */
export const opportunitiesRoutes = (service: OpportunitiesService, close: OpportunityClose, quotes: OpportunityQuotes): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/opportunities', {
    schema: {
      operationId: 'listOpportunities',
      tags,
      summary: 'List opportunities (default: every status, next action due first)',
      description: 'Filters by status, stage, owner, client, type, currency, stalled (open and idle for longer than the tenant’s nudge_days) and a search over title, number and client name.',
      querystring: ListOpportunitiesQuery,
      response: { 200: OpportunityListResponse },
    },
    config: { permission: 'opportunity:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/opportunities', {
    schema: {
      operationId: 'createOpportunity',
      tags,
      summary: 'Create an open opportunity with its first next action (stage identified)',
      querystring: NoQuery,
      body: CreateOpportunityBody,
      response: { 201: OpportunityResponse },
    },
    config: { permission: 'opportunity:create' },
  }, async (req, reply) => {
    const opportunity = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/opportunities/${opportunity.opportunity_id}`);
    return withEtag(req, reply, opportunity);
  });

  app.get('/opportunities/:id', {
    schema: {
      operationId: 'getOpportunity',
      tags,
      summary: 'Get an opportunity with its stage ladder, linked quotes and open commitments',
      params: OpportunityParams,
      querystring: NoQuery,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/opportunities/:id', {
    schema: {
      operationId: 'updateOpportunity',
      tags,
      summary: 'Edit an open opportunity (partial; value and currency are locked while an accepted quote is linked)',
      params: OpportunityParams,
      querystring: NoQuery,
      body: UpdateOpportunityBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/opportunities/:id', {
    schema: {
      operationId: 'deleteOpportunity',
      tags,
      summary: 'Delete an open opportunity without linked quotes (won and lost deals stay for the record: 409)',
      params: OpportunityParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'opportunity:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/opportunities/:id/win', {
    schema: {
      operationId: 'winOpportunity',
      tags,
      summary: 'Win an open opportunity, optionally converting an accepted linked quote into a draft contract and applying a project template — all in one transaction',
      description: 'Open commitments block the win (409). Converting needs contract:create, a project template project:create.',
      params: OpportunityParams,
      querystring: NoQuery,
      body: WinBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await close.win(req.actor, req.params.id, req.body)));

  app.post('/opportunities/:id/lose', {
    schema: {
      operationId: 'loseOpportunity',
      tags,
      summary: 'Lose an open opportunity (loss reason required)',
      params: OpportunityParams,
      querystring: NoQuery,
      body: LoseBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => withEtag(req, reply, await close.lose(req.actor, req.params.id, req.body)));

  app.post('/opportunities/:id/quotes/:quoteId/link', {
    schema: {
      operationId: 'linkOpportunityQuote',
      tags,
      summary: "Link one of the client's quotes: a sent quote is proposed evidence, an accepted one verbal evidence and the deal's value",
      params: QuoteLinkParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await quotes.link(req.actor, req.params.id, req.params.quoteId)));

  app.post('/opportunities/:id/quotes/:quoteId/unlink', {
    schema: {
      operationId: 'unlinkOpportunityQuote',
      tags,
      summary: "Unlink a quote: its evidence is corrected and the value recomputed from the accepted quotes that stay (a value entered by hand is kept when none do)",
      params: QuoteLinkParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 200: OpportunityResponse },
    },
    config: { permission: 'opportunity:update' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => withEtag(req, reply, await quotes.unlink(req.actor, req.params.id, req.params.quoteId)));
};
