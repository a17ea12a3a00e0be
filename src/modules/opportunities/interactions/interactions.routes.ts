import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { Id } from '../../../platform/http/schemas.ts';
import type { InteractionsService } from './interactions.service.ts';
import {
  CreateInteractionBody,
  InteractionListResponse,
  InteractionParams,
  InteractionResponse,
  ListInteractionsQuery,
  TimelineQuery,
  TimelineResponse,
  UpdateInteractionBody,
} from './interactions.schemas.ts';

const tags = ['Opportunities'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const OpportunityParams = Type.Object({ id: Id }, { additionalProperties: false });

/** /interactions (calls, e-mails, meetings, notes with a client) and a deal's timeline of them. */
export const interactionsRoutes = (service: InteractionsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/interactions', {
    schema: {
      operationId: 'listInteractions',
      tags,
      summary: 'List interactions (newest first by default), filtered by client, contact, opportunity, type, user, date range or text',
      querystring: ListInteractionsQuery,
      response: { 200: InteractionListResponse },
    },
    config: { permission: 'interaction:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/interactions', {
    schema: {
      operationId: 'createInteraction',
      tags,
      summary: "Log an interaction with a client: its contact and opportunity must be the client's, its user an active internal user (default the caller)",
      querystring: NoQuery,
      body: CreateInteractionBody,
      response: { 201: InteractionResponse },
    },
    config: { permission: 'interaction:create' },
  }, async (req, reply) => {
    const interaction = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/interactions/${interaction.interaction_id}`);
    return withEtag(req, reply, interaction);
  });

  app.get('/interactions/:interactionId', {
    schema: { operationId: 'getInteraction', tags, summary: 'Get an interaction', params: InteractionParams, querystring: NoQuery, response: { 200: InteractionResponse } },
    config: { permission: 'interaction:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.interactionId)));

  app.put('/interactions/:interactionId', {
    schema: {
      operationId: 'updateInteraction',
      tags,
      summary: 'Update an interaction (partial; a new client re-checks its contact and opportunity; If-Match honoured)',
      params: InteractionParams,
      querystring: NoQuery,
      body: UpdateInteractionBody,
      response: { 200: InteractionResponse },
    },
    config: { permission: 'interaction:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.interactionId, req.body, ifMatchOf(req))));

  app.delete('/interactions/:interactionId', {
    schema: {
      operationId: 'deleteInteraction',
      tags,
      summary: 'Delete an interaction (If-Match honoured); a completed step that logged it keeps no link',
      params: InteractionParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'interaction:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.interactionId, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/opportunities/:id/timeline', {
    schema: {
      operationId: 'getOpportunityTimeline',
      tags,
      summary: "An opportunity's timeline: the interactions linked to it, newest first, paged",
      params: OpportunityParams,
      querystring: TimelineQuery,
      response: { 200: TimelineResponse },
    },
    config: { permission: 'opportunity:read' },
  }, (req) => service.timeline(req.actor, req.params.id, req.query));
};
