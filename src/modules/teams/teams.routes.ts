import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import type { TeamsService } from './teams.service.ts';
import {
  AddMembersBody,
  CreateTeamBody,
  ListMembersQuery,
  ListTeamsQuery,
  MemberListResponse,
  NoQuery,
  TeamListResponse,
  TeamMemberParams,
  TeamResponse,
  UpdateTeamBody,
} from './teams.schemas.ts';

const tags = ['Teams'];

export const teamsRoutes = (service: TeamsService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/teams', {
    schema: { operationId: 'listTeams', tags, summary: 'List teams with their members (filter, search, sort, paginate)', querystring: ListTeamsQuery, response: { 200: TeamListResponse } },
    config: { permission: 'team:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/teams', {
    schema: { operationId: 'createTeam', tags, summary: 'Create a team, optionally with a manager and initial members', querystring: NoQuery, body: CreateTeamBody, response: { 201: TeamResponse } },
    config: { permission: 'team:create' },
  }, async (req, reply) => {
    const team = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/teams/${team.team_id}`);
    return withEtag(req, reply, team);
  });

  app.get('/teams/:id', {
    schema: { operationId: 'getTeam', tags, summary: 'Get a team with its members', params: IdParams, querystring: NoQuery, response: { 200: TeamResponse } },
    config: { permission: 'team:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/teams/:id', {
    schema: { operationId: 'updateTeam', tags, summary: 'Rename a team, change its description or its manager', params: IdParams, querystring: NoQuery, body: UpdateTeamBody, response: { 200: TeamResponse } },
    config: { permission: 'team:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));

  app.delete('/teams/:id', {
    schema: { operationId: 'deleteTeam', tags, summary: 'Delete a team (its members leave it)', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'team:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/teams/:id/members', {
    schema: { operationId: 'listTeamMembers', tags, summary: 'List the members of a team', params: IdParams, querystring: ListMembersQuery, response: { 200: MemberListResponse } },
    config: { permission: 'team:read' },
  }, (req) => service.members(req.actor, req.params.id, req.query));

  app.post('/teams/:id/members', {
    schema: {
      operationId: 'addTeamMembers',
      tags,
      summary: 'Add members to a team (idempotent: current members are skipped); answers with the team',
      params: IdParams,
      querystring: NoQuery,
      body: AddMembersBody,
      response: { 200: TeamResponse },
    },
    config: { permission: 'team:update' },
  }, async (req, reply) => withEtag(req, reply, await service.addMembers(req.actor, req.params.id, req.body)));

  app.delete('/teams/:id/members/:userId', {
    schema: {
      operationId: 'removeTeamMember',
      tags,
      summary: 'Remove a member from a team (the manager must be replaced first)',
      params: TeamMemberParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Removed' } },
    },
    config: { permission: 'team:update' },
  }, async (req, reply) => {
    await service.removeMember(req.actor, req.params.id, req.params.userId, ifMatchOf(req));
    return reply.code(204).send(null);
  });
};
