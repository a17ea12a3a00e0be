import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyBodyIsObject } from '../../../platform/http/empty-body.ts';
import { NoQuery } from './management.schemas.ts';
import { ActiveSessionResponse, MeetingReviewResponse, MeetingSessionResponse, NoBody, ReviewBody, SessionParams } from './meetings.schemas.ts';
import type { MeetingsService } from './meetings.service.ts';

const tags = ['Opportunities'];
const BASE = '/opportunities/meeting-sessions';

/** Pipeline review meetings: one session per user per UTC day, and the deals reviewed in it. */
export const meetingsRoutes = (service: MeetingsService): FastifyPluginAsyncTypebox => async (app) => {
  app.post(BASE, {
    schema: {
      operationId: 'startOpportunityMeetingSession',
      tags,
      summary: "Start (or resume) the caller's pipeline meeting session of today (UTC): 201 when created, 200 with the same session afterwards",
      querystring: NoQuery,
      body: NoBody,
      response: { 200: MeetingSessionResponse, 201: MeetingSessionResponse },
    },
    config: { permission: 'opportunity:read' },
    preValidation: emptyBodyIsObject,
  }, async (req, reply) => {
    const { session, created } = await service.start(req.actor);
    reply.code(created ? 201 : 200).header('Location', `/api/v1${BASE}/${session.session_id}`);
    return { data: session };
  });

  app.get(`${BASE}/active`, {
    schema: {
      operationId: 'getActiveOpportunityMeetingSession',
      tags,
      summary: "The caller's meeting session of today (UTC) with its reviews, or data null when none was started",
      querystring: NoQuery,
      response: { 200: ActiveSessionResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.active(req.actor) }));

  app.get(`${BASE}/:sessionId`, {
    schema: {
      operationId: 'getOpportunityMeetingSession',
      tags,
      summary: "One of the caller's meeting sessions with its reviews (another user's session is a 404)",
      params: SessionParams,
      querystring: NoQuery,
      response: { 200: MeetingSessionResponse },
    },
    config: { permission: 'opportunity:read' },
  }, async (req) => ({ data: await service.get(req.actor, req.params.sessionId) }));

  app.post(`${BASE}/:sessionId/reviews`, {
    schema: {
      operationId: 'reviewOpportunityInMeetingSession',
      tags,
      summary: 'Mark an opportunity reviewed in one of the caller\'s sessions: 201 the first time, 200 refreshing reviewed_at (and the note) afterwards',
      description: "Another user's or an unknown session is a 404; an unknown opportunity is a 400 naming body.opportunity_id.",
      params: SessionParams,
      querystring: NoQuery,
      body: ReviewBody,
      response: { 200: MeetingReviewResponse, 201: MeetingReviewResponse },
    },
    config: { permission: 'opportunity:update' },
  }, async (req, reply) => {
    const { review, created } = await service.review(req.actor, req.params.sessionId, req.body);
    reply.code(created ? 201 : 200);
    return { data: review };
  });
};
