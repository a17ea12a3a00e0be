import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import { NoQuery } from './roles.schemas.ts';
import type { UserRolesService } from './user-roles.service.ts';
import {
  AddRolesBody,
  ListUserRolesQuery,
  RemoveRolesBody,
  RemoveRolesQuery,
  ReplaceRolesBody,
  UserPermissionsResponse,
  UserRolesListResponse,
  UserRolesResponse,
} from './user-roles.schemas.ts';

const tags = ['Roles'];

export const userRolesRoutes = (service: UserRolesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/users/:id/roles', {
    schema: {
      operationId: 'listUserRoles',
      tags,
      summary: 'The roles a user holds, by name (your own need no permission; others need user:read)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: UserRolesResponse },
    },
    config: { permission: null },
  }, async (req, reply) => withEtag(req, reply, await service.roles(req.actor, req.params.id)));

  app.post('/users/:id/roles', {
    schema: {
      operationId: 'addUserRoles',
      tags,
      summary: 'Give a user more roles; API keys of the user carry the new permissions at once',
      params: IdParams,
      querystring: NoQuery,
      body: AddRolesBody,
      response: { 200: UserRolesResponse },
    },
    config: { permission: 'user:update' },
  }, async (req, reply) => withEtag(req, reply, await service.add(req.actor, req.params.id, req.body.role_ids)));

  app.put('/users/:id/roles', {
    schema: {
      operationId: 'replaceUserRoles',
      tags,
      summary: 'Replace the whole set of a user\'s roles; API keys of the user lose removed permissions at once',
      params: IdParams,
      querystring: NoQuery,
      body: ReplaceRolesBody,
      response: { 200: UserRolesResponse },
    },
    config: { permission: 'user:update' },
  }, async (req, reply) => withEtag(req, reply, await service.replace(req.actor, req.params.id, req.body.role_ids, ifMatchOf(req))));

  app.delete('/users/:id/roles', {
    schema: {
      operationId: 'removeUserRoles',
      tags,
      summary: 'Take roles away from a user (ids in the JSON body, or in ?role_ids=a,b); answers with the roles left',
      params: IdParams,
      querystring: RemoveRolesQuery,
      body: RemoveRolesBody,
      response: { 200: UserRolesResponse },
    },
    config: { permission: 'user:update' },
    // A DELETE usually comes without a body: treat that as an empty object so the query form validates.
    preValidation: async (req) => {
      if (req.body === undefined || req.body === null) req.body = {};
    },
  }, async (req, reply) =>
    withEtag(req, reply, await service.remove(req.actor, req.params.id, req.body.role_ids, req.query.role_ids, ifMatchOf(req))));

  app.get('/users/:id/permissions', {
    schema: {
      operationId: 'listUserPermissions',
      tags,
      summary: 'A user\'s effective permissions: the union over their roles, sorted (your own need no permission; others need user:read)',
      params: IdParams,
      querystring: NoQuery,
      response: { 200: UserPermissionsResponse },
    },
    config: { permission: null },
  }, async (req) => ({ data: await service.permissions(req.actor, req.params.id) }));

  app.get('/user-roles', {
    schema: {
      operationId: 'listUsersWithRoles',
      tags,
      summary: 'Users with their roles (read-only); is_inactive absent lists every user',
      querystring: ListUserRolesQuery,
      response: { 200: UserRolesListResponse },
    },
    config: { permission: 'user:read' },
  }, (req) => service.listUsers(req.actor, req.query));
};
