import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import { metaOf } from './users.access.ts';
import type { UsersService } from './users.service.ts';
import {
  CreateUserBody,
  ListUsersQuery,
  NoQuery,
  SearchUsersQuery,
  UpdateUserBody,
  UserListResponse,
  UserResponse,
  UserSearchResponse,
  UserStatsResponse,
} from './users.schemas.ts';

export const tags = ['Users'];

export const usersRoutes = (service: UsersService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/users', {
    schema: {
      operationId: 'listUsers',
      tags,
      summary: 'List users (filter, search, sort, paginate); client-portal keys see only their client’s users and themselves',
      querystring: ListUsersQuery,
      response: { 200: UserListResponse },
    },
    config: { permission: 'user:read' },
  }, (req) => service.list(req.actor, req.query));

  app.post('/users', {
    schema: {
      operationId: 'createUser',
      tags,
      summary: 'Create a user (no roles until assigned); the password must meet the password policy',
      querystring: NoQuery,
      body: CreateUserBody,
      response: { 201: UserResponse },
    },
    config: { permission: 'user:create' },
  }, async (req, reply) => {
    const user = await service.create(req.actor, req.body, metaOf(req));
    reply.code(201).header('Location', `/api/v1/users/${user.user_id}`);
    return withEtag(req, reply, user);
  });

  // Static paths: Fastify matches them before /users/:id.
  app.get('/users/search', {
    schema: {
      operationId: 'searchUsers',
      tags,
      summary: 'Find users by username, name or e-mail; best matches first',
      querystring: SearchUsersQuery,
      response: { 200: UserSearchResponse },
    },
    config: { permission: 'user:read' },
  }, async (req) => ({ data: await service.search(req.actor, req.query) }));

  app.get('/users/stats', {
    schema: {
      operationId: 'getUserStats',
      tags,
      summary: 'Counts of users: active, inactive, by type and role, with 2FA, with an avatar, recent and missing sign-ins',
      querystring: NoQuery,
      response: { 200: UserStatsResponse },
    },
    config: { permission: 'user:read' },
  }, async (req) => ({ data: await service.stats(req.actor) }));

  app.get('/users/:id', {
    schema: {
      operationId: 'getUser',
      tags,
      summary: 'Get a user (yourself without permission; anyone else needs user:read)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: UserResponse },
    },
    config: { permission: null },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));

  app.put('/users/:id', {
    schema: {
      operationId: 'updateUser',
      tags,
      summary: 'Update a user (partial); your own name, phone and time zone need no permission, the rest needs user:update',
      params: IdParams,
      querystring: NoQuery,
      body: UpdateUserBody,
      response: { 200: UserResponse },
    },
    config: { permission: null },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req), metaOf(req))));

  app.delete('/users/:id', {
    schema: {
      operationId: 'deleteUser',
      tags,
      summary: 'Delete a user with their API keys and sessions; not yourself, not the last active Admin (409)',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Deleted' } },
    },
    config: { permission: 'user:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req), metaOf(req));
    return reply.code(204).send(null);
  });
};
