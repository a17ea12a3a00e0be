import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { MembershipsService } from './memberships.service.ts';
import { JoinTeamBody, MembershipListResponse, MembershipResponse, NoQuery, UserTeamParams } from './teams.schemas.ts';

const tags = ['Teams'];

export const membershipsRoutes = (service: MembershipsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/users/:id/teams', {
    schema: {
      operationId: 'listUserTeams',
      tags,
      summary: 'The teams a user belongs to (your own need no permission; others need team:read)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: MembershipListResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id) }));

  app.post('/users/:id/teams', {
    schema: {
      operationId: 'joinTeam',
      tags,
      summary: 'Add a user to a team: 201 when they join, 200 (unchanged) when already a member',
      params: IdParams,
      querystring: NoQuery,
      body: JoinTeamBody,
      response: { 200: MembershipResponse, 201: MembershipResponse },
    },
    config: { permission: 'team:update' },
  }, async (req, reply) => {
    const { membership, created } = await service.join(req.actor, req.params.id, req.body.team_id);
    if (created) reply.code(201).header('Location', `/api/v1/teams/${membership.team_id}/members`);
    return { data: membership };
  });

  app.delete('/users/:id/teams/:teamId', {
    schema: {
      operationId: 'leaveTeam',
      tags,
      summary: 'Remove a user from a team (a team\'s manager must be replaced first)',
      params: UserTeamParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Removed' } },
    },
    config: { permission: 'team:update' },
  }, async (req, reply) => {
    await service.leave(req.actor, req.params.id, req.params.teamId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
