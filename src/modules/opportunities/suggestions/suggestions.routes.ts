import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { OpportunityResponse } from '../opportunities.schemas.ts';
import type { SuggestionsService } from './suggestions.service.ts';
import {
  AcceptSuggestionBody,
  GenerateSuggestionsResponse,
  ListSuggestionsQuery,
  NoBody,
  SnoozeSuggestionBody,
  SuggestionListResponse,
  SuggestionParams,
  SuggestionResponse,
} from './suggestions.schemas.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });

/** Generated suggestions: list, accept (→ opportunity), dismiss, snooze, and an on-demand generator run. */
export const suggestionsRoutes = (service: SuggestionsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/opportunities/suggestions', {
    schema: {
      operationId: 'listOpportunitySuggestions',
      tags,
      summary: 'List suggested opportunities, newest first (default: pending, including snoozed ones whose date has passed)',
      querystring: ListSuggestionsQuery,
      response: { 200: SuggestionListResponse },
    },
    config: { permission: 'opportunity:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/opportunities/suggestions/generate', {
    schema: {
      operationId: 'generateOpportunitySuggestions',
      tags,
      summary: "Run the suggestion generators for the caller's tenant now (as the hourly schedule does); existing and dismissed keys are skipped",
      querystring: NoQuery,
      body: NoBody,
      response: { 200: GenerateSuggestionsResponse },
    },
    config: { permission: 'opportunity:create' },
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.generate(req.actor) }));

  app.post('/opportunities/suggestions/:suggestionId/accept', {
    schema: {
      operationId: 'acceptOpportunitySuggestion',
      tags,
      summary: 'Accept a suggestion: creates the prefilled opportunity (type, next action and context from the generator); accepted or dismissed is a 409',
      params: SuggestionParams,
      querystring: NoQuery,
      body: AcceptSuggestionBody,
      response: { 201: OpportunityResponse },
    },
    config: { permission: 'opportunity:create' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const opportunity = await service.accept(req.actor, req.params.suggestionId, req.body);
    reply.code(201).header('Location', `/api/v1/opportunities/${opportunity.opportunity_id}`);
    return { data: opportunity };
  });

  app.post('/opportunities/suggestions/:suggestionId/dismiss', {
    schema: {
      operationId: 'dismissOpportunitySuggestion',
      tags,
      summary: 'Dismiss a suggestion for good (its key never fires again); an accepted one is a 409',
      params: SuggestionParams,
      querystring: NoQuery,
      body: NoBody,
      response: { 200: SuggestionResponse },
    },
    config: { permission: 'opportunity:update' },
    preValidation: emptyBodyIsObject,
  }, async (req) => ({ data: await service.dismiss(req.actor, req.params.suggestionId) }));

  app.post('/opportunities/suggestions/:suggestionId/snooze', {
    schema: {
      operationId: 'snoozeOpportunitySuggestion',
      tags,
      summary: 'Hide a suggestion until a future date-time, when it is pending again; accepted or dismissed is a 409',
      params: SuggestionParams,
      querystring: NoQuery,
      body: SnoozeSuggestionBody,
      response: { 200: SuggestionResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req) => ({ data: await service.snooze(req.actor, req.params.suggestionId, req.body) }));
};
